//! JSON-RPC and LSP plumbing. Nothing in here knows about F# or FSAC.
//!
//! `codec` cuts a byte stream into `Content-Length` frames, `message` reads just enough of a
//! frame (its envelope) to route it, `ext` is the one place where the names fslens puts on
//! the wire are spelled, and `types` holds the LSP shapes fslens reads from FSAC.

pub mod codec;
pub mod ext;
pub mod message;
pub mod stdio;
pub mod types;
