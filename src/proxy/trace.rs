//! `--trace-messages`: a JSON-lines transcript of every message with its direction and time.
//!
//! Lines are written by a task of their own so that tracing never blocks the main loop. A
//! message whose bytes are not JSON (an undecodable frame) is recorded as a string.

use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use serde_json::value::RawValue;
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

/// Which hop a traced message was seen on.
#[derive(Debug, Clone, Copy)]
pub enum Direction {
    EditorToProxy,
    ProxyToFsac,
    FsacToProxy,
    ProxyToEditor,
}

impl Direction {
    fn as_str(self) -> &'static str {
        match self {
            Direction::EditorToProxy => "editor->proxy",
            Direction::ProxyToFsac => "proxy->fsac",
            Direction::FsacToProxy => "fsac->proxy",
            Direction::ProxyToEditor => "proxy->editor",
        }
    }
}

/// A handle for recording messages; cheap to clone, a no-op when tracing is off.
#[derive(Clone, Default)]
pub struct Tracer {
    sender: Option<mpsc::UnboundedSender<String>>,
    started: Option<Instant>,
}

impl Tracer {
    /// Opens (truncates) the transcript file and starts its writer task.
    pub async fn to_file(path: &Path) -> anyhow::Result<Tracer> {
        let mut file = tokio::fs::File::create(path)
            .await
            .with_context(|| format!("cannot create the message transcript {}", path.display()))?;
        let (sender, mut receiver) = mpsc::unbounded_channel::<String>();
        tokio::spawn(async move {
            while let Some(line) = receiver.recv().await {
                if file.write_all(line.as_bytes()).await.is_err() {
                    break;
                }
                if receiver.is_empty() {
                    let _ = file.flush().await;
                }
            }
            let _ = file.flush().await;
        });
        Ok(Tracer { sender: Some(sender), started: Some(Instant::now()) })
    }

    pub fn record(&self, direction: Direction, bytes: &[u8]) {
        let (Some(sender), Some(started)) = (&self.sender, self.started) else {
            return;
        };
        let text = String::from_utf8_lossy(bytes);
        let message = match serde_json::from_str::<&RawValue>(&text) {
            Ok(raw) => raw.get().to_owned(),
            Err(_) => serde_json::Value::String(text.into_owned()).to_string(),
        };
        let line = format!(
            "{{\"timeMs\":{:.3},\"direction\":\"{}\",\"message\":{}}}\n",
            started.elapsed().as_secs_f64() * 1000.0,
            direction.as_str(),
            message
        );
        let _ = sender.send(line);
    }
}
