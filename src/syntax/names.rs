//! How F# spells one name several ways, and the one spelling the index stores.
//!
//! An operator is declared as `let (>>=) a b = …`, used as `a >>= b` or `(>>=) a b`, and
//! compiled to the .NET name `op_GreaterGreaterEquals`. The index stores it in its display
//! form, `(>>=)` (`( *** )` when the operator starts or ends with `*`, which would otherwise
//! open or close a comment), and its ranges cover the operator's characters only, without
//! the parentheses, as the compiler's identifier ranges do. A backticked identifier
//! (``` ``my value`` ```) is stored as written, and its ranges cover the backticks; a plain
//! name and its backticked spelling are the same identifier, so lookups try both
//! ([`spellings`]). The compiled-name encoding is the F# compiler's (its `PrettyNaming`
//! tables: the standard operators have fixed names, other operators spell each character).

/// Operators with a fixed compiled name (F# spec §3.7, the compiler's standard table).
const STANDARD_OPERATORS: &[(&str, &str)] = &[
    ("[]", "op_Nil"),
    ("::", "op_ColonColon"),
    ("+", "op_Addition"),
    ("~%", "op_Splice"),
    ("~%%", "op_SpliceUntyped"),
    ("~++", "op_Increment"),
    ("~--", "op_Decrement"),
    ("-", "op_Subtraction"),
    ("*", "op_Multiply"),
    ("**", "op_Exponentiation"),
    ("/", "op_Division"),
    ("@", "op_Append"),
    ("^", "op_Concatenate"),
    ("%", "op_Modulus"),
    ("&&&", "op_BitwiseAnd"),
    ("|||", "op_BitwiseOr"),
    ("^^^", "op_ExclusiveOr"),
    ("<<<", "op_LeftShift"),
    ("~~~", "op_LogicalNot"),
    (">>>", "op_RightShift"),
    ("~+", "op_UnaryPlus"),
    ("~-", "op_UnaryNegation"),
    ("~&", "op_AddressOf"),
    ("~&&", "op_IntegerAddressOf"),
    ("&&", "op_BooleanAnd"),
    ("||", "op_BooleanOr"),
    ("<=", "op_LessThanOrEqual"),
    ("=", "op_Equality"),
    ("<>", "op_Inequality"),
    (">=", "op_GreaterThanOrEqual"),
    ("<", "op_LessThan"),
    (">", "op_GreaterThan"),
    ("|>", "op_PipeRight"),
    ("||>", "op_PipeRight2"),
    ("|||>", "op_PipeRight3"),
    ("<|", "op_PipeLeft"),
    ("<||", "op_PipeLeft2"),
    ("<|||", "op_PipeLeft3"),
    ("!", "op_Dereference"),
    (">>", "op_ComposeRight"),
    ("<<", "op_ComposeLeft"),
    ("+=", "op_AdditionAssignment"),
    ("-=", "op_SubtractionAssignment"),
    ("*=", "op_MultiplyAssignment"),
    ("/=", "op_DivisionAssignment"),
    ("..", "op_Range"),
    ("?", "op_Dynamic"),
    ("?<-", "op_DynamicAssignment"),
];

/// What each operator character is called in the compiled name of a custom operator.
const OPERATOR_CHARACTERS: &[(char, &str)] = &[
    ('>', "Greater"),
    ('<', "Less"),
    ('+', "Plus"),
    ('-', "Minus"),
    ('*', "Multiply"),
    ('=', "Equals"),
    ('~', "Twiddle"),
    ('%', "Percent"),
    ('.', "Dot"),
    ('$', "Dollar"),
    ('&', "Amp"),
    ('|', "Bar"),
    ('@', "At"),
    ('#', "Hash"),
    ('^', "Hat"),
    ('!', "Bang"),
    ('?', "Qmark"),
    ('/', "Divide"),
    (':', "Colon"),
];

const COMPILED_PREFIX: &str = "op_";

fn is_operator_character(character: char) -> bool {
    OPERATOR_CHARACTERS.iter().any(|(known, _)| *known == character)
}

/// True when `text` is an operator's own characters, `>>=` (not `(>>=)`).
pub fn is_operator(text: &str) -> bool {
    !text.is_empty() && (text.chars().all(is_operator_character) || text == "[]")
}

/// The operator inside a display form: `(>>=)` and `( *** )` give `>>=` and `***`.
pub fn operator_core(name: &str) -> Option<&str> {
    let inner = name.strip_prefix('(')?.strip_suffix(')')?.trim();
    is_operator(inner).then_some(inner)
}

/// The display form of an operator's characters: `>>=` → `(>>=)`, `***` → `( *** )`.
pub fn operator_display(core: &str) -> String {
    if core.starts_with('*') || core.ends_with('*') { format!("( {core} )") } else { format!("({core})") }
}

/// The compiled .NET name of an operator: `>>=` → `op_GreaterGreaterEquals`, `|>` →
/// `op_PipeRight`. `None` when `core` is not an operator.
pub fn compiled_operator_name(core: &str) -> Option<String> {
    if !is_operator(core) {
        return None;
    }
    if let Some((_, compiled)) = STANDARD_OPERATORS.iter().find(|(operator, _)| *operator == core) {
        return Some((*compiled).to_owned());
    }
    let mut compiled = COMPILED_PREFIX.to_owned();
    for character in core.chars() {
        let (_, word) = OPERATOR_CHARACTERS.iter().find(|(known, _)| *known == character)?;
        compiled.push_str(word);
    }
    Some(compiled)
}

/// The operator a compiled name stands for: `op_GreaterGreaterEquals` → `>>=`. `None` for
/// anything else (`op_` followed by words that are not operator characters).
pub fn decompiled_operator(name: &str) -> Option<String> {
    if let Some((operator, _)) = STANDARD_OPERATORS.iter().find(|(_, compiled)| *compiled == name) {
        return Some((*operator).to_owned());
    }
    let mut rest = name.strip_prefix(COMPILED_PREFIX)?;
    let mut core = String::new();
    while !rest.is_empty() {
        // The longest word that fits: no word is a prefix of another, so the first fits.
        let (character, word) = OPERATOR_CHARACTERS.iter().find(|(_, word)| rest.starts_with(word))?;
        core.push(*character);
        rest = &rest[word.len()..];
    }
    (!core.is_empty()).then_some(core)
}

/// The stored spelling of one name segment as a user may write it: `>>=`, `(>>=)`,
/// `( >>= )` and `op_GreaterGreaterEquals` all give `(>>=)`; anything else is returned as it
/// is (backticks kept: see [`spellings`]).
pub fn stored_name(written: &str) -> String {
    let trimmed = written.trim();
    if let Some(core) = operator_core(trimmed) {
        return operator_display(core);
    }
    if is_operator(trimmed) {
        return operator_display(trimmed);
    }
    if let Some(core) = decompiled_operator(trimmed) {
        return operator_display(&core);
    }
    trimmed.to_owned()
}

/// `name` without F#'s double backticks: ``` ``my value`` ``` → `my value`.
pub fn without_backticks(name: &str) -> &str {
    name.strip_prefix("``").and_then(|rest| rest.strip_suffix("``")).unwrap_or(name)
}

/// The spellings under which the index may have stored the name a user wrote: its stored
/// form, and for an identifier both its plain and its backticked spelling (`value` and
/// ``` ``value`` ``` are one identifier). The stored form comes first.
pub fn spellings(written: &str) -> Vec<String> {
    let stored = stored_name(written);
    if operator_core(&stored).is_some() {
        return vec![stored];
    }
    let plain = without_backticks(&stored).to_owned();
    let backticked = format!("``{plain}``");
    if stored == plain { vec![plain, backticked] } else { vec![backticked, plain] }
}

/// The name in a canonical form for comparisons: backticks removed, operators in display
/// form. Two spellings of one name give the same key.
pub fn comparison_key(written: &str) -> String {
    without_backticks(&stored_name(written)).to_owned()
}

/// How many UTF-16 units a site of a stored name covers: an operator's characters (the
/// parentheses are not part of its ranges), otherwise the name as written, backticks included.
pub fn site_length(stored: &str) -> u32 {
    operator_core(stored).unwrap_or(stored).encode_utf16().count() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_compile_and_decompile_like_the_compiler() {
        assert_eq!(compiled_operator_name(">>=").as_deref(), Some("op_GreaterGreaterEquals"));
        assert_eq!(compiled_operator_name("<!>").as_deref(), Some("op_LessBangGreater"));
        assert_eq!(compiled_operator_name(".>>.").as_deref(), Some("op_DotGreaterGreaterDot"));
        assert_eq!(compiled_operator_name("|>").as_deref(), Some("op_PipeRight"));
        assert_eq!(compiled_operator_name("x"), None);
        assert_eq!(decompiled_operator("op_GreaterGreaterEquals").as_deref(), Some(">>="));
        assert_eq!(decompiled_operator("op_LessMultiplyGreater").as_deref(), Some("<*>"));
        assert_eq!(decompiled_operator("op_PipeRight").as_deref(), Some("|>"));
        assert_eq!(decompiled_operator("op_Implicit"), None);
        assert_eq!(decompiled_operator("opGreater"), None);
        for core in [">>=", "<!>", "<*>", ">=>", ".>>.", "|>>", "=="] {
            let compiled = compiled_operator_name(core).unwrap();
            assert_eq!(decompiled_operator(&compiled).as_deref(), Some(core), "{compiled}");
        }
    }

    #[test]
    fn every_spelling_of_a_name_is_stored_once() {
        for written in [">>=", "(>>=)", "( >>= )", "op_GreaterGreaterEquals"] {
            assert_eq!(stored_name(written), "(>>=)", "{written}");
        }
        assert_eq!(stored_name("***"), "( *** )");
        assert_eq!(stored_name("value"), "value");
        assert_eq!(spellings("value"), ["value", "``value``"]);
        assert_eq!(spellings("``value``"), ["``value``", "value"]);
        assert_eq!(spellings("``my value``"), ["``my value``", "my value"]);
        assert_eq!(spellings("op_GreaterGreaterEquals"), ["(>>=)"]);
        assert_eq!(comparison_key("``value``"), comparison_key("value"));
        assert_eq!(site_length("(>>=)"), 3);
        assert_eq!(site_length("( *** )"), 3);
        assert_eq!(site_length("``value``"), 9);
    }
}
