//! Fuzzes the syntax layer's extractor with arbitrary bytes.
//!
//! The input, read as UTF-8 (lossily, and as itself when it is valid), is parsed with both F#
//! grammars and indexed; the index is rendered (which resolves every name and range it holds),
//! and the fallback header and signature renderer run on the same text. For every input:
//! nothing panics, and indexing is deterministic (the same text gives the same rendering).
#![no_main]

use fslens::syntax::describe::{describe_local_index, index_text};
use fslens::syntax::extract::{fallback_header, render_signature};
use fslens::syntax::model::GrammarKind;
use libfuzzer_sys::fuzz_target;

fn check(text: &str) {
    for grammar in [GrammarKind::Implementation, GrammarKind::Signature] {
        let Ok(first) = index_text(text, grammar) else { continue };
        let rendered = describe_local_index(text, &first);
        let again = index_text(text, grammar).expect("a text that parsed once parses again");
        assert_eq!(describe_local_index(text, &again), rendered, "indexing is not deterministic");
    }
    let _ = fallback_header(text);
    let length = text.len() as u32;
    for (start, end) in [(0, length), (length / 3, length / 2), (length / 2, length / 3), (length, length + 7)] {
        let _ = render_signature(text, (start, end), 120);
    }
}

fuzz_target!(|data: &[u8]| {
    check(&String::from_utf8_lossy(data));
    if let Ok(text) = std::str::from_utf8(data) {
        check(text);
    }
});
