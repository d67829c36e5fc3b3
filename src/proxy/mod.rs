//! The routing core: the one owner of mutable session state.
//!
//! `main_loop` receives every event (a frame from the editor, a frame or the exit of FSAC, a
//! finished command) and decides per message whether to intercept, forward or observe it.
//! `backend` starts and watches FSAC, `initialize` patches the handshake and `readiness`
//! tracks how far FSAC has loaded the workspace.

pub mod backend;
pub mod initialize;
pub mod main_loop;
pub mod memory;
pub mod readiness;
pub mod supervisor;
pub mod trace;
pub mod what_if;

pub use main_loop::{ProxyConfig, run_proxy};
