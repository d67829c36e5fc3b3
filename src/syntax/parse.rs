//! Parsing with tree-sitter-fsharp under a deadline.
//!
//! tree-sitter-fsharp 0.3.12 has an open infinite-loop bug and parses at only ~2 MB/s, so
//! every parse here runs with a progress callback that cancels it once its deadline passes.
//! A cancelled parse is reported as [`ParseFailure::DeadlineExceeded`], never as an empty
//! tree. Parsers are reused per thread through [`FsharpParsers`].

use std::borrow::Cow;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{Language, ParseOptions, ParseState, Parser, Tree};

use crate::syntax::model::GrammarKind;
use crate::syntax::{conditionals, inline_il, trailing_comments};

/// The grammar crate's version, part of every cache key.
pub const GRAMMAR_VERSION: &str = "tree-sitter-fsharp-0.3.12";

/// How long a parse may run: `base` plus `per_megabyte` for each MB of text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeadlinePolicy {
    pub base: Duration,
    pub per_megabyte: Duration,
}

impl Default for DeadlinePolicy {
    /// Generous next to the measured ~0.5 s per MB: a healthy parse never hits it, a looping
    /// one is stopped within seconds.
    fn default() -> Self {
        DeadlinePolicy { base: Duration::from_secs(2), per_megabyte: Duration::from_secs(4) }
    }
}

impl DeadlinePolicy {
    pub fn budget_for(&self, text_bytes: usize) -> Duration {
        let megabytes = text_bytes as f64 / 1_000_000.0;
        self.base + self.per_megabyte.mul_f64(megabytes)
    }
}

/// Why a parse produced no tree.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseFailure {
    #[error("parse cancelled after {elapsed_ms} ms: deadline of {budget_ms} ms exceeded")]
    DeadlineExceeded { budget_ms: u64, elapsed_ms: u64 },
    #[error("tree-sitter refused the grammar: {0}")]
    Language(String),
    #[error("tree-sitter returned no tree")]
    NoTree,
}

/// The tree-sitter language for a grammar kind.
pub fn language_for(grammar: GrammarKind) -> Language {
    match grammar {
        GrammarKind::Implementation => tree_sitter_fsharp::LANGUAGE_FSHARP.into(),
        GrammarKind::Signature => tree_sitter_fsharp::LANGUAGE_SIGNATURE.into(),
    }
}

/// One parser per grammar, created lazily; owned by one thread.
#[derive(Default)]
pub struct FsharpParsers {
    implementation: Option<Parser>,
    signature: Option<Parser>,
}

impl FsharpParsers {
    pub fn new() -> Self {
        FsharpParsers::default()
    }

    fn parser_for(&mut self, grammar: GrammarKind) -> Result<&mut Parser, ParseFailure> {
        let slot = match grammar {
            GrammarKind::Implementation => &mut self.implementation,
            GrammarKind::Signature => &mut self.signature,
        };
        if slot.is_none() {
            let mut parser = Parser::new();
            parser.set_language(&language_for(grammar)).map_err(|error| ParseFailure::Language(error.to_string()))?;
            *slot = Some(parser);
        }
        slot.as_mut().ok_or(ParseFailure::NoTree)
    }

    /// Parses `text` with `grammar`, cancelling at `budget` after the call starts. The grammar
    /// reads inline IL as the same-length expression [`inline_il::neutralize`] makes of it.
    /// When that tree has errors, two more readings are tried in what is left of the budget,
    /// each kept when its tree has fewer errors than the best so far: first, when the text has
    /// `#if` directives, the directive lines blanked ([`conditionals::without_directives`]);
    /// then the best text's trailing line comments read as block comments
    /// ([`trailing_comments::as_block_comments`]). Either way the tree's offsets, lines and
    /// columns are `text`'s.
    pub fn parse(&mut self, text: &str, grammar: GrammarKind, budget: Duration) -> Result<Tree, ParseFailure> {
        let started = Instant::now();
        let mut text = inline_il::neutralize(text);
        let mut tree = self.parse_until(&text, grammar, started, budget)?;
        if !tree.root_node().has_error() {
            return Ok(tree);
        }
        if let Some(blanked) = conditionals::without_directives(&text) {
            match self.parse_until(&blanked, grammar, started, budget) {
                Ok(second) if error_weight(&second) < error_weight(&tree) => {
                    if !second.root_node().has_error() {
                        return Ok(second);
                    }
                    (text, tree) = (Cow::Owned(blanked), second);
                }
                _ => {}
            }
        }
        let Some(rewritten) = trailing_comments::as_block_comments(&text, &tree) else { return Ok(tree) };
        match self.parse_until(&rewritten, grammar, started, budget) {
            Ok(third) if error_weight(&third) < error_weight(&tree) => Ok(third),
            _ => Ok(tree),
        }
    }

    /// One parse of `text`, cancelled once `budget` has passed since `started`.
    fn parse_until(
        &mut self,
        text: &str,
        grammar: GrammarKind,
        started: Instant,
        budget: Duration,
    ) -> Result<Tree, ParseFailure> {
        let parser = self.parser_for(grammar)?;
        let deadline = started + budget;
        let bytes = text.as_bytes();
        let mut timed_out = false;
        // The callback runs very often; reading the clock every call costs a few percent, so
        // look only every 64th call (tree-sitter calls it every few hundred operations).
        let mut calls: u32 = 0;
        let mut progress = |_state: &ParseState| -> ControlFlow<()> {
            calls = calls.wrapping_add(1);
            if calls.is_multiple_of(64) && Instant::now() >= deadline {
                timed_out = true;
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        };
        let options = ParseOptions::new().progress_callback(&mut progress);
        let tree = parser.parse_with_options(
            &mut |offset: usize, _| {
                if offset < bytes.len() { &bytes[offset..] } else { &[] }
            },
            None,
            Some(options),
        );
        match tree {
            Some(tree) => Ok(tree),
            None => {
                // A cancelled parse leaves state behind that would resume on the next call.
                parser.reset();
                if timed_out {
                    Err(ParseFailure::DeadlineExceeded {
                        budget_ms: budget.as_millis() as u64,
                        elapsed_ms: started.elapsed().as_millis() as u64,
                    })
                } else {
                    Err(ParseFailure::NoTree)
                }
            }
        }
    }
}

/// How much of a tree is error: the bytes its `ERROR` nodes span, and one for each `MISSING`
/// token.
fn error_weight(tree: &Tree) -> usize {
    let mut weight = 0;
    let mut pending = vec![tree.root_node()];
    while let Some(node) = pending.pop() {
        if node.is_error() {
            weight += node.byte_range().len().max(1);
        } else if node.is_missing() {
            weight += 1;
        } else if node.has_error() {
            let mut cursor = node.walk();
            pending.extend(node.children(&mut cursor));
        }
    }
    weight
}
