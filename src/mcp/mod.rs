//! `fslens mcp`: an MCP server on stdio (built on rmcp, the official Rust SDK) that gives a
//! coding agent the editor's warm FSAC session — same buffers, same document versions, same
//! commands.
//!
//! At start the bridge joins the session serving the workspace through the session client
//! (`crate::session_client`), or starts one that serves the socket for later clients. The tool
//! catalogue (`tools`) follows the fslens commands that session advertises, plus
//! `symbol_at_word` and `navigate`, composed from the read-only LSP requests a session client
//! may send (`crate::navigation`). `tools/list` starts small: situational tools wait in groups until the agent
//! activates them (`groups`). Every answer is bounded and footed (`output`); `server` is the
//! rmcp handler that ties these together. stdout carries nothing but MCP messages.

pub mod groups;
pub mod output;
pub mod server;
pub mod tools;

use std::path::Path;

use anyhow::Context;
use rmcp::ServiceExt;

pub use server::{BridgeServer, ConfigFactory};

/// Serves MCP on stdin/stdout for `workspace_root` until the client closes stdin. A session
/// the bridge started is shut down (with its FSAC) when the bridge ends.
/// `all_tools` lists every tool from the start instead of the core ones (`--all-tools`).
pub async fn run_mcp_server(
    workspace_root: &Path,
    config_factory: ConfigFactory,
    all_tools: bool,
) -> anyhow::Result<()> {
    let root = workspace_root
        .canonicalize()
        .with_context(|| format!("workspace {} does not exist", workspace_root.display()))?;
    // Join or start the session before the client's handshake, so `tools/list` reflects the
    // commands it advertises; a failure here is retried at the first tool call.
    let session = match config_factory() {
        Ok(config) => match crate::session_client::Session::join_or_start(
            &root,
            config,
            crate::session_client::ClientKind::McpBridge,
        )
        .await
        {
            Ok(session) => Some(session),
            Err(error) => {
                tracing::warn!("no session yet: {error:#}");
                None
            }
        },
        Err(error) => {
            tracing::warn!("cannot configure FSAC: {error:#}");
            None
        }
    };
    let server = BridgeServer::new(root, config_factory, session, all_tools);
    // stdin and stdout are driven by the reactor when they are pipes or sockets (no blocking-thread
    // hand-off per message), as for the proxy.
    let transport = (crate::lsp::stdio::stdin(), crate::lsp::stdio::stdout());
    let outcome = match server.clone().serve(transport).await {
        Ok(running) => running.waiting().await.map(|_| ()).context("the MCP service failed"),
        Err(error) => Err(anyhow::anyhow!("the MCP handshake failed: {error}")),
    };
    server.close().await;
    outcome
}
