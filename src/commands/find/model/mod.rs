//! The bottom of find: the types its phases share and its answer is made of. Nothing here
//! imports the rest of find; the matching rules ([`super::matching`]) and the phases
//! ([`super::phases`]) build on it.
//!
//! [`arguments`] (what a find is asked), [`rows`] (sites, and the rows the answer lists),
//! [`budget`] (the site budget that cuts the stream into segments), [`work`] (what a find
//! compared, counted), [`texts`] (the file texts a find quotes, read once), [`verdict`] (what
//! the ledger established), [`cursor`] (the stateless cursor and the identities it binds to)
//! and [`answer`] (the typed answer and its pieces).

pub mod answer;
pub mod arguments;
pub mod budget;
pub mod cursor;
pub mod rows;
pub mod texts;
pub mod verdict;
pub mod work;
