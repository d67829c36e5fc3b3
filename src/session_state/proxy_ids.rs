//! The ids of the requests fslens itself sends (to FSAC or to the editor): one counter per
//! session, so that no two such requests share an id, whichever part of fslens sent them.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::lsp::ext::PROXY_ID_PREFIX;
use crate::lsp::message::RequestId;

/// Mints `fslens:1`, `fslens:2`, … for the requests fslens originates. Shared (behind an
/// `Arc`) by the main loop and every running command.
#[derive(Debug)]
pub struct ProxyIds {
    next: AtomicU64,
}

impl Default for ProxyIds {
    fn default() -> Self {
        ProxyIds { next: AtomicU64::new(1) }
    }
}

impl ProxyIds {
    /// A fresh id, never minted before in this session.
    pub fn mint(&self) -> RequestId {
        RequestId::String(format!("{PROXY_ID_PREFIX}{}", self.next.fetch_add(1, Ordering::Relaxed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_prefixed_and_never_repeat() {
        let ids = ProxyIds::default();
        let first = ids.mint();
        let second = ids.mint();
        assert_eq!(first, RequestId::String("fslens:1".to_owned()));
        assert_eq!(second, RequestId::String("fslens:2".to_owned()));
    }
}
