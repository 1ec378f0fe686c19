extension QRCode {
    /// An SVG image of the symbol: a white background and one black path, crisp edges.
    /// - Parameters:
    ///   - moduleSize: The width of one module in SVG user units (pixels), 1 or more.
    ///   - quietZone: Light modules on each side; 4 by default (ISO/IEC 18004 §6.3.8).
    /// - Returns: A complete `<svg>` document; the `viewBox` is in modules. Treat it as
    ///   secret when the code encodes one (an enrollment link).
    public func svg(moduleSize: Int = 4, quietZone: Int = QRCode.defaultQuietZone) -> String {
        let zone = max(0, quietZone)
        let width = size + 2 * zone
        let pixels = width * max(1, moduleSize)
        var path = ""
        for row in 0..<size {
            var column = 0
            while column < size {
                guard isDark(row: row, column: column) else {
                    column += 1
                    continue
                }
                let start = column
                while column < size, isDark(row: row, column: column) { column += 1 }
                path += "M\(start + zone) \(row + zone)h\(column - start)v1h-\(column - start)z"
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(pixels)" height="\(pixels)" \
            viewBox="0 0 \(width) \(width)" shape-rendering="crispEdges">\
            <rect width="\(width)" height="\(width)" fill="#ffffff"/>\
            <path fill="#000000" d="\(path)"/></svg>
            """
    }

    /// The symbol drawn with Unicode half blocks (`▀ ▄ █`, U+2580, U+2584, U+2588): each text
    /// line holds two module rows, lines end with `\n`.
    /// - Parameters:
    ///   - quietZone: Light modules on each side; 4 by default (ISO/IEC 18004 §6.3.8).
    ///   - darkOnLight: `true` (default) prints dark modules as blocks, for a terminal with a
    ///     light background; `false` prints light modules as blocks, so a dark-background
    ///     terminal shows dark modules dark (what scanners expect).
    /// - Returns: `(size + 2 × quietZone + 1) / 2` lines. Treat as secret when the code
    ///   encodes one.
    public func terminalString(quietZone: Int = QRCode.defaultQuietZone, darkOnLight: Bool = true) -> String {
        let grid = matrix(quietZone: quietZone)
        var text = ""
        for top in stride(from: 0, to: grid.count, by: 2) {
            for column in 0..<grid.count {
                let upper = grid[top][column] == darkOnLight
                let lower = top + 1 < grid.count ? grid[top + 1][column] == darkOnLight : false
                switch (upper, lower) {
                case (true, true): text += "\u{2588}"
                case (true, false): text += "\u{2580}"
                case (false, true): text += "\u{2584}"
                case (false, false): text += " "
                }
            }
            text += "\n"
        }
        return text
    }
}
