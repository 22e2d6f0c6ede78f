import Foundation

/// Guides that control how values are generated: ranges, counts, patterns and choices.
///
/// Guides flow into the schema (`minimum`, `maxItems`, `pattern`, `enum`…), and the grammar
/// built from the schema enforces them while decoding.
public struct GenerationGuide<Value>: Sendable {
    let constraints: GuideConstraints

    init(_ constraints: GuideConstraints) {
        self.constraints = constraints
    }
}

/// The type-erased content of one or more guides, merged.
struct GuideConstraints: Sendable, Equatable {
    var minimum: Double?
    var maximum: Double?
    var choices: [String]?
    var pattern: String?
    var minimumCount: Int?
    var maximumCount: Int?
    /// Guides for the elements of an array.
    var element: ElementGuides?

    /// Boxed so that the struct can nest.
    final class ElementGuides: Sendable, Equatable {
        let constraints: GuideConstraints
        init(_ constraints: GuideConstraints) { self.constraints = constraints }
        static func == (lhs: ElementGuides, rhs: ElementGuides) -> Bool { lhs.constraints == rhs.constraints }
    }

    static let none = GuideConstraints()

    /// Later guides win for the same field, as when they are written one after another.
    func merging(_ other: GuideConstraints) -> GuideConstraints {
        var merged = self
        if let value = other.minimum { merged.minimum = value }
        if let value = other.maximum { merged.maximum = value }
        if let value = other.choices { merged.choices = value }
        if let value = other.pattern { merged.pattern = value }
        if let value = other.minimumCount { merged.minimumCount = value }
        if let value = other.maximumCount { merged.maximumCount = value }
        if let value = other.element {
            merged.element = ElementGuides((element?.constraints ?? .none).merging(value.constraints))
        }
        return merged
    }

    static func merged(_ list: [GuideConstraints]) -> GuideConstraints {
        list.reduce(GuideConstraints.none) { $0.merging($1) }
    }
}

// MARK: Strings

extension GenerationGuide where Value == String {
    /// Enforces that the string be precisely the given value.
    public static func constant(_ value: String) -> GenerationGuide<String> {
        GenerationGuide(GuideConstraints(choices: [value]))
    }

    /// Enforces that the string be one of the provided values.
    public static func anyOf(_ values: [String]) -> GenerationGuide<String> {
        GenerationGuide(GuideConstraints(choices: values))
    }

    /// Enforces that the string follows the pattern.
    public static func pattern<Output>(_ regex: Regex<Output>) -> GenerationGuide<String> {
        GenerationGuide(GuideConstraints(pattern: RegexPattern.source(of: regex)))
    }
}

// MARK: Numbers (bounds are inclusive)
//
// Bounds flow into the schema as `minimum`/`maximum` and the grammar enforces them exactly as
// decimals while decoding (bounded numbers are written without exponent). Decimal bounds pass
// through the nearest Double.

extension GenerationGuide where Value == Int {
    /// Enforces a minimum value.
    public static func minimum(_ value: Int) -> GenerationGuide<Int> { GenerationGuide(GuideConstraints(minimum: Double(value))) }
    /// Enforces a maximum value.
    public static func maximum(_ value: Int) -> GenerationGuide<Int> { GenerationGuide(GuideConstraints(maximum: Double(value))) }
    /// Enforces values fall within a range.
    public static func range(_ range: ClosedRange<Int>) -> GenerationGuide<Int> {
        GenerationGuide(GuideConstraints(minimum: Double(range.lowerBound), maximum: Double(range.upperBound)))
    }
}

extension GenerationGuide where Value == Float {
    /// Enforces a minimum value.
    public static func minimum(_ value: Float) -> GenerationGuide<Float> { GenerationGuide(GuideConstraints(minimum: schemaBound(value))) }
    /// Enforces a maximum value.
    public static func maximum(_ value: Float) -> GenerationGuide<Float> { GenerationGuide(GuideConstraints(maximum: schemaBound(value))) }
    /// Enforces values fall within a range.
    public static func range(_ range: ClosedRange<Float>) -> GenerationGuide<Float> {
        GenerationGuide(GuideConstraints(minimum: schemaBound(range.lowerBound), maximum: schemaBound(range.upperBound)))
    }

    /// The Double written as the schema bound: the one nearest the Float's shortest decimal, so
    /// `.minimum(0.1)` becomes `"minimum": 0.1`, not 0.10000000149011612 (which the grammar, reading
    /// bounds as exact decimals, would hold "0.1" to be below).
    private static func schemaBound(_ value: Float) -> Double { Double(value.description) ?? Double(value) }
}

extension GenerationGuide where Value == Double {
    /// Enforces a minimum value.
    public static func minimum(_ value: Double) -> GenerationGuide<Double> { GenerationGuide(GuideConstraints(minimum: value)) }
    /// Enforces a maximum value.
    public static func maximum(_ value: Double) -> GenerationGuide<Double> { GenerationGuide(GuideConstraints(maximum: value)) }
    /// Enforces values fall within a range.
    public static func range(_ range: ClosedRange<Double>) -> GenerationGuide<Double> {
        GenerationGuide(GuideConstraints(minimum: range.lowerBound, maximum: range.upperBound))
    }
}

extension GenerationGuide where Value == Decimal {
    /// Enforces a minimum value.
    public static func minimum(_ value: Decimal) -> GenerationGuide<Decimal> {
        GenerationGuide(GuideConstraints(minimum: NSDecimalNumber(decimal: value).doubleValue))
    }
    /// Enforces a maximum value.
    public static func maximum(_ value: Decimal) -> GenerationGuide<Decimal> {
        GenerationGuide(GuideConstraints(maximum: NSDecimalNumber(decimal: value).doubleValue))
    }
    /// Enforces values fall within a range.
    public static func range(_ range: ClosedRange<Decimal>) -> GenerationGuide<Decimal> {
        GenerationGuide(GuideConstraints(
            minimum: NSDecimalNumber(decimal: range.lowerBound).doubleValue,
            maximum: NSDecimalNumber(decimal: range.upperBound).doubleValue
        ))
    }
}

// MARK: Arrays (bounds are inclusive)

extension GenerationGuide {
    /// Enforces a minimum number of elements in the array.
    public static func minimumCount<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
        GenerationGuide<[Element]>(GuideConstraints(minimumCount: count))
    }

    /// Enforces a maximum number of elements in the array.
    public static func maximumCount<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
        GenerationGuide<[Element]>(GuideConstraints(maximumCount: count))
    }

    /// Enforces that the number of elements in the array fall within a closed range.
    public static func count<Element>(_ range: ClosedRange<Int>) -> GenerationGuide<[Element]> where Value == [Element] {
        GenerationGuide<[Element]>(GuideConstraints(minimumCount: range.lowerBound, maximumCount: range.upperBound))
    }

    /// Enforces that the array has exactly a certain number of elements.
    public static func count<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
        GenerationGuide<[Element]>(GuideConstraints(minimumCount: count, maximumCount: count))
    }

    /// Enforces a guide on the elements within the array.
    public static func element<Element>(_ guide: GenerationGuide<Element>) -> GenerationGuide<[Element]> where Value == [Element] {
        GenerationGuide<[Element]>(GuideConstraints(element: .init(guide.constraints)))
    }
}

// MARK: Array guides inside `@Guide(…)`

/// `@Guide(.count(3))` is type-checked before the property's type is known, so the element
/// type cannot be inferred there. These overloads give the macro argument a concrete type;
/// `@Generable` re-reads the same expression against the real property type.
extension GenerationGuide where Value == [Never] {
    /// Enforces a minimum number of elements in the array (inside `@Guide`).
    public static func minimumCount(_ count: Int) -> GenerationGuide<[Never]> {
        GenerationGuide(GuideConstraints(minimumCount: count))
    }

    /// Enforces a maximum number of elements in the array (inside `@Guide`).
    public static func maximumCount(_ count: Int) -> GenerationGuide<[Never]> {
        GenerationGuide(GuideConstraints(maximumCount: count))
    }

    /// Enforces an element count within a closed range (inside `@Guide`).
    public static func count(_ range: ClosedRange<Int>) -> GenerationGuide<[Never]> {
        GenerationGuide(GuideConstraints(minimumCount: range.lowerBound, maximumCount: range.upperBound))
    }

    /// Enforces an exact element count (inside `@Guide`).
    public static func count(_ count: Int) -> GenerationGuide<[Never]> {
        GenerationGuide(GuideConstraints(minimumCount: count, maximumCount: count))
    }
}
