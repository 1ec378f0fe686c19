extension EmailAddress: CustomReflectable {
    /// A mirror showing only the masked form.
    public var customMirror: Mirror { Mirror(self, children: ["masked": masked], displayStyle: .struct) }
}
