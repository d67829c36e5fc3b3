//! `fslens.restart`: restarts the shared FSAC process and replays the open buffers into it.

use serde_json::Value;

use crate::commands::params::CommandArguments;
use crate::commands::{CommandContext, CommandError};

/// `fslens.restart` takes no arguments.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RestartArguments {}

impl CommandArguments for RestartArguments {}

/// Restarts FSAC (the editor's too) and answers once the restart is under way.
pub async fn restart(_arguments: RestartArguments, context: CommandContext) -> Result<Value, CommandError> {
    context.restart_backend().await
}
