/// Recursive-descent parser for the jinja2 statement grammar. Expressions are in
/// `JinjaParser+Expressions.swift`.
struct JinjaParser {
    var tokens: [JinjaToken]
    var index = 0
    /// Nesting depth, bounded so a hostile template cannot overflow the stack.
    var depth = 0
    static let maxDepth = 128

    init(tokens: [JinjaToken]) { self.tokens = tokens }

    static func parse(_ source: String) throws(JinjaError) -> [JinjaNode] {
        var parser = JinjaParser(tokens: try JinjaLexer.tokenize(source))
        let (body, end) = try parser.parseBody(until: [])
        if let end { throw parser.error("unexpected '\(end)'") }
        try JinjaNameCheck.check(body)
        return body
    }

    // MARK: token helpers

    var current: JinjaToken { tokens[min(index, tokens.count - 1)] }

    mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    func error(_ message: String, _ token: JinjaToken? = nil) -> JinjaError {
        let t = token ?? current
        return JinjaError(.syntax, message, line: t.line, column: t.column)
    }

    func isName(_ name: String) -> Bool {
        if case .name(name) = current.kind { return true }
        return false
    }

    func isOp(_ op: String) -> Bool {
        if case .op(op) = current.kind { return true }
        return false
    }

    mutating func skipName(_ name: String) -> Bool {
        guard isName(name) else { return false }
        advance()
        return true
    }

    mutating func skipOp(_ op: String) -> Bool {
        guard isOp(op) else { return false }
        advance()
        return true
    }

    mutating func expectOp(_ op: String) throws(JinjaError) {
        guard skipOp(op) else { throw error("expected '\(op)', got \(describe(current))") }
    }

    mutating func expectName() throws(JinjaError) -> String {
        guard case .name(let n) = current.kind else { throw error("expected a name, got \(describe(current))") }
        advance()
        return n
    }

    mutating func expectBlockEnd() throws(JinjaError) {
        guard current.kind == .blockEnd else { throw error("expected end of statement block, got \(describe(current))") }
        advance()
    }

    func describe(_ token: JinjaToken) -> String {
        switch token.kind {
        case .text: return "template text"
        case .blockBegin: return "'{%'"
        case .blockEnd: return "'%}'"
        case .variableBegin: return "'{{'"
        case .variableEnd: return "'}}'"
        case .name(let n): return "'\(n)'"
        case .string(let s): return "string '\(s)'"
        case .int(let i): return "\(i)"
        case .double(let d): return "\(d)"
        case .op(let o): return "'\(o)'"
        case .eof: return "end of template"
        }
    }

    mutating func enter() throws(JinjaError) {
        depth += 1
        if depth > Self.maxDepth {
            throw JinjaError(.limit, "template nesting deeper than \(Self.maxDepth)", line: current.line, column: current.column)
        }
    }

    // MARK: statements

    /// Parses nodes until a block tag whose name is in `until` (returned, with the stream just
    /// after that name) or the end of the template (nil).
    mutating func parseBody(until: Set<String>) throws(JinjaError) -> ([JinjaNode], String?) {
        try enter()
        defer { depth -= 1 }
        var nodes: [JinjaNode] = []
        while true {
            let token = current
            switch token.kind {
            case .eof:
                if !until.isEmpty {
                    throw error("unexpected end of template; expected one of \(until.sorted().joined(separator: ", "))")
                }
                return (nodes, nil)
            case .text(let t):
                nodes.append(.text(t))
                advance()
            case .variableBegin:
                advance()
                let e = try parseTuple(withCondexpr: true)
                guard current.kind == .variableEnd else { throw error("expected '}}', got \(describe(current))") }
                advance()
                nodes.append(.output(e))
            case .blockBegin:
                advance()
                guard case .name(let tag) = current.kind else { throw error("expected a statement name") }
                if until.contains(tag) {
                    advance()
                    return (nodes, tag)
                }
                nodes.append(try parseStatement(tag))
            default:
                throw error("unexpected \(describe(token))")
            }
        }
    }

    mutating func parseStatement(_ tag: String) throws(JinjaError) -> JinjaNode {
        let token = current
        advance()
        switch tag {
        case "if": return try parseIf()
        case "for": return try parseFor(line: token.line)
        case "set": return try parseSet(line: token.line)
        case "macro": return try parseMacro(line: token.line)
        case "call": return try parseCallBlock(line: token.line)
        case "filter":
            let filters = try parseFilterChain()
            try expectBlockEnd()
            let body = try parseBody(until: ["endfilter"]).0
            try expectBlockEnd()
            return .filterBlock(filters: filters, body: body)
        case "generation":
            // transformers' `{% generation %}` marks assistant text for masks; it renders its body.
            try expectBlockEnd()
            let body = try parseBody(until: ["endgeneration"]).0
            try expectBlockEnd()
            return .filterBlock(filters: [], body: body)
        case "with":
            var assignments: [(JinjaTarget, JinjaExpr)] = []
            while current.kind != .blockEnd {
                if !assignments.isEmpty { try expectOp(",") }
                let target = try parseAssignTarget()
                try expectOp("=")
                assignments.append((target, try parseExpression()))
            }
            try expectBlockEnd()
            let body = try parseBody(until: ["endwith"]).0
            try expectBlockEnd()
            return .with(assignments: assignments, body: body)
        case "break":
            try expectBlockEnd()
            return .breakLoop(line: token.line)
        case "continue":
            try expectBlockEnd()
            return .continueLoop(line: token.line)
        default:
            throw error("unknown or unsupported tag '\(tag)'", token)
        }
    }

    mutating func parseIf() throws(JinjaError) -> JinjaNode {
        var branches: [(JinjaExpr, [JinjaNode])] = []
        var condition = try parseTuple(withCondexpr: false)
        while true {
            try expectBlockEnd()
            let (body, end) = try parseBody(until: ["elif", "else", "endif"])
            branches.append((condition, body))
            switch end {
            case "elif":
                condition = try parseTuple(withCondexpr: false)
            case "else":
                try expectBlockEnd()
                let (otherwise, _) = try parseBody(until: ["endif"])
                try expectBlockEnd()
                return .ifChain(branches: branches, otherwise: otherwise)
            default:
                try expectBlockEnd()
                return .ifChain(branches: branches, otherwise: [])
            }
        }
    }

    mutating func parseFor(line: Int) throws(JinjaError) -> JinjaNode {
        let target = try parseAssignTarget(extraEnd: ["in"])
        guard skipName("in") else { throw error("expected 'in' in for loop") }
        let iterable = try parseTuple(withCondexpr: false, extraEnd: ["recursive", "if"])
        var condition: JinjaExpr?
        if skipName("if") { condition = try parseExpression() }
        if isName("recursive") { throw error("recursive for loops are not supported") }
        try expectBlockEnd()
        let (body, end) = try parseBody(until: ["endfor", "else"])
        var otherwise: [JinjaNode] = []
        if end == "else" {
            try expectBlockEnd()
            otherwise = try parseBody(until: ["endfor"]).0
        }
        try expectBlockEnd()
        return .forLoop(JinjaFor(target: target, iterable: iterable, condition: condition, body: body, otherwise: otherwise, line: line))
    }

    mutating func parseSet(line: Int) throws(JinjaError) -> JinjaNode {
        let target = try parseAssignTarget()
        if skipOp("=") {
            let value = try parseTuple(withCondexpr: true)
            try expectBlockEnd()
            return .set(target: target, value: value, line: line)
        }
        var filters: [JinjaFilterCall] = []
        while skipOp("|") { filters.append(try parseFilterCall()) }
        try expectBlockEnd()
        let body = try parseBody(until: ["endset"]).0
        try expectBlockEnd()
        return .setBlock(target: target, filters: filters, body: body, line: line)
    }

    mutating func parseMacro(line: Int) throws(JinjaError) -> JinjaNode {
        let name = try expectName()
        let parameters = try parseParameters()
        try expectBlockEnd()
        let body = try parseBody(until: ["endmacro"]).0
        _ = skipName(name)
        try expectBlockEnd()
        return .macro(JinjaMacro(name: name, parameters: parameters, body: body, line: line))
    }

    mutating func parseCallBlock(line: Int) throws(JinjaError) -> JinjaNode {
        let parameters = isOp("(") ? try parseParameters() : []
        let call = try parseExpression()
        guard case .call = call else { throw error("expected a call after 'call'") }
        try expectBlockEnd()
        let body = try parseBody(until: ["endcall"]).0
        try expectBlockEnd()
        return .callBlock(call: call, callerParameters: parameters, body: body, line: line)
    }

    /// `(a, b=default, …)` of a macro or call block.
    mutating func parseParameters() throws(JinjaError) -> [JinjaParameter] {
        try expectOp("(")
        var parameters: [JinjaParameter] = []
        while !skipOp(")") {
            if !parameters.isEmpty { try expectOp(",") }
            if skipOp(")") { break }
            let name = try expectName()
            let value: JinjaExpr? = skipOp("=") ? try parseExpression() : nil
            parameters.append(JinjaParameter(name: name, defaultValue: value))
        }
        return parameters
    }

    /// `name`, `ns.attr`, or `a, b` (optionally parenthesised).
    mutating func parseAssignTarget(extraEnd: Set<String> = []) throws(JinjaError) -> JinjaTarget {
        var targets: [JinjaTarget] = []
        var sawComma = false
        while true {
            if skipOp("(") {
                targets.append(try parseAssignTarget())
                try expectOp(")")
            } else {
                let name = try expectName()
                if skipOp(".") {
                    targets.append(.attribute(object: name, name: try expectName()))
                } else {
                    targets.append(.name(name))
                }
            }
            guard skipOp(",") else { break }
            sawComma = true
            if case .name(let n) = current.kind, extraEnd.contains(n) { break }
            if isOp("=") || current.kind == .blockEnd { break }
        }
        return targets.count == 1 && !sawComma ? targets[0] : .tuple(targets)
    }

    mutating func parseFilterChain() throws(JinjaError) -> [JinjaFilterCall] {
        var filters: [JinjaFilterCall] = []
        if current.kind == .blockEnd { return filters }
        repeat {
            filters.append(try parseFilterCall())
        } while skipOp("|")
        return filters
    }
}
