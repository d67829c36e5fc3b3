//! The phases of a find, in the order they run (find's `run` calls them; each returns what the
//! next reads). A phase imports only the phases before it, [`super::matching`] and
//! [`super::model`].

pub mod answer;
pub mod candidates;
pub mod classify;
pub mod declarations;
pub mod find_run;
pub mod implementations;
pub mod ledger;
pub mod narrowing;
pub mod page;
pub mod position;
pub mod qualified;
pub mod site_types;
pub mod slots;
pub mod stream;
pub mod sweep;
pub mod target;
pub mod type_errors;
pub mod unseen;
