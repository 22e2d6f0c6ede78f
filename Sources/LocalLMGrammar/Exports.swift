// The JSON value type the grammar reads schemas as lives in LocalLMJSON, below every layer; users
// of the grammar see it as before.
@_exported import LocalLMJSON
