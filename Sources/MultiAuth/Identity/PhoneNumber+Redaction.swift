extension PhoneNumber: CustomReflectable {
    /// A mirror showing only the masked form: phone numbers are personal data and stay out
    /// of dumps and logs.
    public var customMirror: Mirror { Mirror(self, children: ["masked": masked], displayStyle: .struct) }
}
