/// Expression grammar, following jinja2's parser precedence:
/// condexpr < or < and < not < compare (incl. `in`) < `+ -` < `~` < `* / // %` < `**` < unary,
/// then postfix (`.x`, `[…]`, `(…)`) and filters/tests (`|f`, `is t`).
extension JinjaParser {
    mutating func parseExpression(withCondexpr: Bool = true) throws(JinjaError) -> JinjaExpr {
        try enter()
        defer { depth -= 1 }
        return withCondexpr ? try parseCondexpr() : try parseOr()
    }

    /// A comma-separated list becomes a tuple (`{{ a, b }}`, `for k, v in …`).
    mutating func parseTuple(withCondexpr: Bool, extraEnd: Set<String> = [], explicitParentheses: Bool = false) throws(JinjaError) -> JinjaExpr {
        var items: [JinjaExpr] = []
        var sawComma = false
        while true {
            if !items.isEmpty {
                guard skipOp(",") else { break }
                sawComma = true
            }
            if isTupleEnd(extraEnd) { break }
            items.append(try parseExpression(withCondexpr: withCondexpr))
        }
        if !sawComma {
            if let first = items.first { return first }
            if !explicitParentheses { throw error("expected an expression, got \(describe(current))") }
        }
        return .tuple(items)
    }

    func isTupleEnd(_ extraEnd: Set<String>) -> Bool {
        switch current.kind {
        case .variableEnd, .blockEnd, .eof: return true
        case .op(let o): return o == ")" || o == "]" || o == "}"
        case .name(let n): return extraEnd.contains(n)
        default: return false
        }
    }

    mutating func parseCondexpr() throws(JinjaError) -> JinjaExpr {
        var expr = try parseOr()
        while skipName("if") {
            let condition = try parseOr()
            let otherwise: JinjaExpr? = skipName("else") ? try parseCondexpr() : nil
            expr = .conditional(then: expr, condition: condition, otherwise: otherwise)
        }
        return expr
    }

    mutating func parseOr() throws(JinjaError) -> JinjaExpr {
        var left = try parseAnd()
        while skipName("or") { left = .or(left, try parseAnd()) }
        return left
    }

    mutating func parseAnd() throws(JinjaError) -> JinjaExpr {
        var left = try parseNot()
        while skipName("and") { left = .and(left, try parseNot()) }
        return left
    }

    mutating func parseNot() throws(JinjaError) -> JinjaExpr {
        if skipName("not") {
            try enter()
            defer { depth -= 1 }
            return .not(try parseNot())
        }
        return try parseCompare()
    }

    mutating func parseCompare() throws(JinjaError) -> JinjaExpr {
        let first = try parseMath1()
        var operands = [first]
        var ops: [(String, Int)] = []
        while true {
            let line = current.line
            var op: String?
            if case .op(let o) = current.kind, ["==", "!=", "<", "<=", ">", ">="].contains(o) {
                op = o
                advance()
            } else if skipName("in") {
                op = "in"
            } else if isName("not"), index + 1 < tokens.count, case .name("in") = tokens[index + 1].kind {
                advance()
                advance()
                op = "not in"
            }
            guard let op else { break }
            ops.append((op, line))
            operands.append(try parseMath1())
        }
        guard !ops.isEmpty else { return first }
        // Python chains comparisons: a < b < c means a < b and b < c.
        var result: JinjaExpr = .binary(ops[0].0, operands[0], operands[1], line: ops[0].1)
        for i in 1..<ops.count {
            result = .and(result, .binary(ops[i].0, operands[i], operands[i + 1], line: ops[i].1))
        }
        return result
    }

    mutating func parseMath1() throws(JinjaError) -> JinjaExpr {
        var left = try parseConcat()
        while case .op(let o) = current.kind, o == "+" || o == "-" {
            let line = current.line
            advance()
            left = .binary(o, left, try parseConcat(), line: line)
        }
        return left
    }

    mutating func parseConcat() throws(JinjaError) -> JinjaExpr {
        var left = try parseMath2()
        while isOp("~") {
            let line = current.line
            advance()
            left = .binary("~", left, try parseMath2(), line: line)
        }
        return left
    }

    mutating func parseMath2() throws(JinjaError) -> JinjaExpr {
        var left = try parsePow()
        while case .op(let o) = current.kind, ["*", "/", "//", "%"].contains(o) {
            let line = current.line
            advance()
            left = .binary(o, left, try parsePow(), line: line)
        }
        return left
    }

    mutating func parsePow() throws(JinjaError) -> JinjaExpr {
        var left = try parseUnary()
        while isOp("**") {
            let line = current.line
            advance()
            left = .binary("**", left, try parseUnary(), line: line)
        }
        return left
    }

    mutating func parseUnary(withFilter: Bool = true) throws(JinjaError) -> JinjaExpr {
        try enter()
        defer { depth -= 1 }
        let line = current.line
        var node: JinjaExpr
        if skipOp("-") {
            node = .negate(try parseUnary(withFilter: false), line: line)
        } else if skipOp("+") {
            node = .plus(try parseUnary(withFilter: false), line: line)
        } else {
            node = try parsePrimary()
        }
        node = try parsePostfix(node)
        if withFilter { node = try parseFilterExpr(node) }
        return node
    }

    mutating func parsePrimary() throws(JinjaError) -> JinjaExpr {
        let token = current
        switch token.kind {
        case .name(let n):
            advance()
            switch n {
            case "true", "True": return .literal(.bool(true))
            case "false", "False": return .literal(.bool(false))
            case "none", "None": return .literal(.none)
            default: return .name(n, line: token.line)
            }
        case .string(let s):
            advance()
            var text = s
            while case .string(let more) = current.kind {
                text += more
                advance()
            }
            return .literal(.string(text))
        case .int(let i):
            advance()
            return .literal(.int(i))
        case .double(let d):
            advance()
            return .literal(.double(d))
        case .op("("):
            advance()
            let e = try parseTuple(withCondexpr: true, explicitParentheses: true)
            try expectOp(")")
            return e
        case .op("["):
            advance()
            var items: [JinjaExpr] = []
            while !skipOp("]") {
                if !items.isEmpty { try expectOp(",") }
                if skipOp("]") { break }
                items.append(try parseExpression())
            }
            return .list(items)
        case .op("{"):
            advance()
            var pairs: [(JinjaExpr, JinjaExpr)] = []
            while !skipOp("}") {
                if !pairs.isEmpty { try expectOp(",") }
                if skipOp("}") { break }
                let key = try parseExpression()
                try expectOp(":")
                pairs.append((key, try parseExpression()))
            }
            return .dict(pairs)
        default:
            throw error("unexpected \(describe(token))")
        }
    }

    mutating func parsePostfix(_ start: JinjaExpr) throws(JinjaError) -> JinjaExpr {
        var node = start
        while true {
            let line = current.line
            if skipOp(".") {
                switch current.kind {
                case .name(let n):
                    advance()
                    node = .attribute(node, n, line: line)
                case .int(let i):
                    advance()
                    node = .item(node, .literal(.int(i)), line: line)
                default:
                    throw error("expected an attribute name after '.'")
                }
            } else if skipOp("[") {
                node = try parseSubscript(node, line: line)
            } else if isOp("(") {
                node = .call(node, try parseCallArguments(), line: line)
            } else {
                return node
            }
        }
    }

    mutating func parseSubscript(_ target: JinjaExpr, line: Int) throws(JinjaError) -> JinjaExpr {
        var parts: [JinjaExpr?] = []
        var current: JinjaExpr? = nil
        var isSlice = false
        while true {
            if skipOp("]") { break }
            if skipOp(":") {
                isSlice = true
                parts.append(current)
                current = nil
                continue
            }
            if current != nil { throw error("expected ':' or ']' in subscript") }
            current = try parseExpression()
        }
        parts.append(current)
        if !isSlice {
            guard let index = parts[0] else { throw error("empty subscript") }
            return .item(target, index, line: line)
        }
        guard parts.count <= 3 else { throw error("too many ':' in slice") }
        return .slice(target, start: parts[0], stop: parts.count > 1 ? parts[1] : nil, step: parts.count > 2 ? parts[2] : nil, line: line)
    }

    mutating func parseCallArguments() throws(JinjaError) -> JinjaArguments {
        try expectOp("(")
        var args = JinjaArguments()
        var first = true
        while !skipOp(")") {
            if !first { try expectOp(",") }
            first = false
            if skipOp(")") { break }
            if case .name(let n) = current.kind, index + 1 < tokens.count, case .op("=") = tokens[index + 1].kind {
                advance()
                advance()
                args.keywords.append((n, try parseExpression()))
            } else {
                if !args.keywords.isEmpty { throw error("positional argument after keyword argument") }
                args.positional.append(try parseExpression())
            }
        }
        return args
    }

    mutating func parseFilterCall() throws(JinjaError) -> JinjaFilterCall {
        let token = current
        var name = try expectName()
        while skipOp(".") { name += "." + (try expectName()) }
        let arguments = isOp("(") ? try parseCallArguments() : JinjaArguments()
        return JinjaFilterCall(name: name, arguments: arguments, line: token.line)
    }

    mutating func parseFilterExpr(_ start: JinjaExpr) throws(JinjaError) -> JinjaExpr {
        var node = start
        while true {
            if skipOp("|") {
                node = .filter(node, try parseFilterCall())
            } else if isName("is") {
                let line = current.line
                advance()
                let negated = skipName("not")
                var name = try expectName()
                while skipOp(".") { name += "." + (try expectName()) }
                var arguments = JinjaArguments()
                if isOp("(") {
                    arguments = try parseCallArguments()
                } else if startsTestArgument() {
                    arguments.positional = [try parsePostfix(try parsePrimary())]
                }
                node = .test(node, name: name, arguments: arguments, negated: negated, line: line)
            } else if isOp("(") {
                node = .call(node, try parseCallArguments(), line: current.line)
            } else {
                return node
            }
        }
    }

    /// jinja2 takes one bare argument after a test name (`x is divisibleby 3`) unless the next
    /// token is `else`, `or` or `and`.
    func startsTestArgument() -> Bool {
        switch current.kind {
        case .name(let n): return !["else", "or", "and", "is"].contains(n)
        case .string, .int, .double: return true
        case .op(let o): return o == "[" || o == "{"
        default: return false
        }
    }
}
