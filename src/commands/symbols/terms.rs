//! Query terms for `fslens.symbolSearch`: how a query is split into identifiers, how an
//! identifier is split into lower-case words, and how strongly an indexed name matches a term.
//!
//! A query is one or more identifiers separated by white space or commas; a dotted name
//! (`Shipping.Domain.Shipment`) counts as one term per segment and double-backtick names are
//! unquoted. An identifier's words are its snake_case parts, each split again at camelCase /
//! PascalCase humps (`HTTPServer` → `http`, `server`; `parse_JSONValue2` → `parse`, `json`,
//! `value2`). A name matches a term exactly (same spelling), case-insensitively, or by words
//! (the term's words appear in order, adjacent, among the name's: `Shipment` matches
//! `ShipmentId` and `createShipment`), each with a lower weight than the one before.

use crate::commands::CommandError;

/// At most this many terms per query.
pub const MAX_QUERY_TERMS: usize = 16;

/// Weight of an exact match in a term's frequency.
pub const EXACT_WEIGHT: f64 = 1.0;
/// Weight of a case-insensitive match.
pub const CASE_WEIGHT: f64 = 0.8;
/// Weight of a match by words.
pub const WORDS_WEIGHT: f64 = 0.4;

/// One identifier of the query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryTerm {
    /// As written (unquoted).
    pub text: String,
    /// Lower-case words.
    pub words: Vec<String>,
}

/// How a name matched a term; spelled as [`MatchKind::as_str`] in `results[].terms[].names[].match`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatchKind {
    Words,
    CaseInsensitive,
    Exact,
}

impl MatchKind {
    pub fn weight(self) -> f64 {
        match self {
            MatchKind::Exact => EXACT_WEIGHT,
            MatchKind::CaseInsensitive => CASE_WEIGHT,
            MatchKind::Words => WORDS_WEIGHT,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::CaseInsensitive => "case-insensitive",
            MatchKind::Words => "words",
        }
    }
}

/// Splits a query into its terms; an empty query, or one without any identifier, is an
/// `invalid_argument` naming `query`.
pub fn parse_query(query: &str) -> Result<Vec<QueryTerm>, CommandError> {
    let mut terms: Vec<QueryTerm> = Vec::new();
    let mut pieces: Vec<String> = Vec::new();
    // Double-backtick names may hold spaces and dots: take them whole first.
    let mut rest = query;
    while let Some(start) = rest.find("``") {
        pieces.extend(plain_pieces(&rest[..start]));
        let after = &rest[start + 2..];
        match after.find("``") {
            Some(end) => {
                pieces.push(after[..end].to_owned());
                rest = &after[end + 2..];
            }
            None => {
                rest = after;
            }
        }
    }
    pieces.extend(plain_pieces(rest));
    for piece in pieces {
        let text = piece.trim().to_owned();
        let words = split_words(&text);
        if text.is_empty() || words.is_empty() {
            continue;
        }
        if terms.iter().any(|term| term.text.eq_ignore_ascii_case(&text)) {
            continue;
        }
        terms.push(QueryTerm { text, words });
    }
    if terms.is_empty() {
        return Err(CommandError::invalid_argument("query", "give at least one identifier, e.g. `Shipment`"));
    }
    if terms.len() > MAX_QUERY_TERMS {
        return Err(CommandError::invalid_argument(
            "query",
            format!("{} terms; at most {MAX_QUERY_TERMS} are searched at once", terms.len()),
        ));
    }
    Ok(terms)
}

fn plain_pieces(text: &str) -> Vec<String> {
    text.split(|character: char| character.is_whitespace() || matches!(character, ',' | '.' | ';' | '(' | ')'))
        .filter(|piece| !piece.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The lower-case words of an identifier (see the module documentation).
pub fn split_words(identifier: &str) -> Vec<String> {
    let mut words = Vec::new();
    for part in identifier.split(|character: char| !character.is_alphanumeric()) {
        let characters: Vec<char> = part.chars().collect();
        let mut current = String::new();
        for (index, &character) in characters.iter().enumerate() {
            let previous = index.checked_sub(1).and_then(|previous| characters.get(previous)).copied();
            let next = characters.get(index + 1).copied();
            let boundary = character.is_uppercase()
                && match previous {
                    Some(previous) if previous.is_lowercase() || previous.is_ascii_digit() => true,
                    // The last capital of an acronym starts the next word: `HTTPServer`.
                    Some(previous) if previous.is_uppercase() => next.is_some_and(char::is_lowercase),
                    _ => false,
                };
            if boundary && !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            current.extend(character.to_lowercase());
        }
        if !current.is_empty() {
            words.push(current);
        }
    }
    words
}

/// How `name` (with its precomputed `name_words`) matches `term`, if at all.
pub fn match_name(term: &QueryTerm, name: &str, name_words: &[String]) -> Option<MatchKind> {
    if name == term.text {
        return Some(MatchKind::Exact);
    }
    if name.eq_ignore_ascii_case(&term.text) || (name.to_lowercase() == term.text.to_lowercase()) {
        return Some(MatchKind::CaseInsensitive);
    }
    let wanted = term.words.len();
    if wanted > 0 && name_words.len() > wanted && name_words.windows(wanted).any(|window| window == term.words) {
        return Some(MatchKind::Words);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(query: &str) -> Vec<String> {
        parse_query(query).unwrap().into_iter().map(|term| term.text).collect()
    }

    #[test]
    fn words_split_at_humps_underscores_and_acronyms() {
        assert_eq!(split_words("ShipmentId"), ["shipment", "id"]);
        assert_eq!(split_words("createShipment"), ["create", "shipment"]);
        assert_eq!(split_words("HTTPServer"), ["http", "server"]);
        assert_eq!(split_words("parse_JSONValue2"), ["parse", "json", "value2"]);
        assert_eq!(split_words("weigh'"), ["weigh"]);
        assert_eq!(split_words("x"), ["x"]);
        assert!(split_words("__").is_empty());
    }

    #[test]
    fn queries_split_into_terms() {
        assert_eq!(texts("Shipment weigh"), ["Shipment", "weigh"]);
        assert_eq!(texts("Shipping.Domain.Shipment, weigh"), ["Shipping", "Domain", "Shipment", "weigh"]);
        assert_eq!(texts("``total weight`` Shipment shipment"), ["total weight", "Shipment"]);
        assert_eq!(parse_query("  ").unwrap_err().data()["argument"], "query");
        assert_eq!(parse_query("... ,").unwrap_err().kind(), "invalid_argument");
        let many = (0..20).map(|index| format!("name{index}")).collect::<Vec<_>>().join(" ");
        assert_eq!(parse_query(&many).unwrap_err().data()["argument"], "query");
    }

    #[test]
    fn names_match_exactly_then_by_case_then_by_words() {
        let term = &parse_query("Shipment").unwrap()[0];
        let check = |name: &str| match_name(term, name, &split_words(name));
        assert_eq!(check("Shipment"), Some(MatchKind::Exact));
        assert_eq!(check("shipment"), Some(MatchKind::CaseInsensitive));
        assert_eq!(check("ShipmentId"), Some(MatchKind::Words));
        assert_eq!(check("createShipment"), Some(MatchKind::Words));
        assert_eq!(check("Shipments"), None);
        assert_eq!(check("Ship"), None);
        let two = &parse_query("shipmentId").unwrap()[0];
        assert_eq!(match_name(two, "newShipmentId", &split_words("newShipmentId")), Some(MatchKind::Words));
        assert_eq!(match_name(two, "ShipmentWeightId", &split_words("ShipmentWeightId")), None);
    }
}
