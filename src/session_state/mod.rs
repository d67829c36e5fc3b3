//! What the session knows that both its main loop and its commands read, as plain values.
//!
//! The main loop (`proxy`) owns and updates this state; the commands (`commands`) only ever
//! see copies of it, handed to them through their `CommandContext`. Keeping these types here,
//! apart from both, lets `commands` depend on no `proxy` module.

pub mod analysis;
pub mod proxy_ids;
pub mod status;
