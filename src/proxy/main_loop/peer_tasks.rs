//! The tasks that serve the peers: readers cut frames and hand them to the loop as events,
//! writers drain the loop's unbounded queues. They only move frames; every decision is the
//! loop's.

use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::sync::{mpsc, oneshot};

use crate::lsp::codec::{FrameLimits, FrameReader, write_frame_unflushed};
use crate::lsp::message::{Message, salvage_request_id};
use crate::proxy::backend::StderrTail;

use super::{BackendEvent, ClientEvent, EditorEvent, Event};

/// Writes queued frames to a peer, flushing once the queue is drained.
pub(super) async fn writer_task<W: AsyncWrite + Unpin>(
    writer: W,
    mut queue: mpsc::UnboundedReceiver<Bytes>,
    peer: &'static str,
) {
    use tokio::io::AsyncWriteExt;
    // One write system call per drained batch rather than two per frame.
    let mut writer = tokio::io::BufWriter::with_capacity(64 * 1024, writer);
    while let Some(body) = queue.recv().await {
        if let Err(error) = write_frame_unflushed(&mut writer, &body).await {
            tracing::debug!("cannot write to {peer}: {error}");
            return;
        }
        if queue.is_empty()
            && let Err(error) = writer.flush().await
        {
            tracing::debug!("cannot flush to {peer}: {error}");
            return;
        }
    }
    let _ = writer.flush().await;
    let _ = writer.shutdown().await;
}

pub(super) async fn editor_reader_task<R: AsyncRead + Unpin>(
    reader: R,
    limits: FrameLimits,
    events: mpsc::UnboundedSender<Event>,
) {
    let mut frames = FrameReader::new(BufReader::new(reader), limits);
    loop {
        let event = match frames.read_frame().await {
            Ok(Some(body)) => match Message::classify(&body) {
                Ok(kind) => EditorEvent::Message(Message::from_classified(kind, body)),
                Err(error) => {
                    EditorEvent::BadFrame { error: error.to_string(), salvaged_id: salvage_request_id(&body) }
                }
            },
            Ok(None) => {
                let _ = events.send(Event::Editor(EditorEvent::Closed { error: None }));
                return;
            }
            Err(error) if error.is_fatal() => {
                let _ = events.send(Event::Editor(EditorEvent::Closed { error: Some(error.to_string()) }));
                return;
            }
            Err(error) => EditorEvent::BadFrame { error: error.to_string(), salvaged_id: None },
        };
        if events.send(Event::Editor(event)).is_err() {
            return;
        }
    }
}

pub(super) async fn client_reader_task(
    reader: crate::session::server::SessionReadHalf,
    limits: FrameLimits,
    client: u64,
    events: mpsc::UnboundedSender<Event>,
) {
    let mut frames = FrameReader::new(BufReader::new(reader), limits);
    loop {
        let event = match frames.read_frame().await {
            Ok(Some(body)) => match Message::classify(&body) {
                Ok(kind) => ClientEvent::Message(Message::from_classified(kind, body)),
                Err(error) => {
                    ClientEvent::BadFrame { error: error.to_string(), salvaged_id: salvage_request_id(&body) }
                }
            },
            Ok(None) => ClientEvent::Closed,
            Err(error) if error.is_fatal() => ClientEvent::Closed,
            Err(error) => ClientEvent::BadFrame { error: error.to_string(), salvaged_id: None },
        };
        let closed = matches!(event, ClientEvent::Closed);
        if events.send(Event::Client { client, event }).is_err() || closed {
            return;
        }
    }
}

pub(super) async fn backend_reader_task(
    reader: Box<dyn AsyncRead + Send + Unpin>,
    limits: FrameLimits,
    generation: u64,
    events: mpsc::UnboundedSender<Event>,
    stderr: Option<tokio::task::JoinHandle<()>>,
    tail: StderrTail,
    exit: oneshot::Receiver<Option<i32>>,
) {
    let mut frames = FrameReader::new(BufReader::new(reader), limits);
    loop {
        match frames.read_frame().await {
            Ok(Some(body)) => match Message::parse(body) {
                Ok(message) => {
                    if events.send(Event::Backend { generation, event: BackendEvent::Message(message) }).is_err() {
                        return;
                    }
                }
                Err(error) => tracing::warn!("skipping an undecodable message from FSAC: {error}"),
            },
            Ok(None) => break,
            Err(error) if error.is_fatal() => {
                tracing::warn!("FSAC's output failed: {error}");
                break;
            }
            Err(error) => tracing::warn!("skipping a bad frame from FSAC: {error}"),
        }
    }
    // The process may still be writing its last words to stderr; give it a moment.
    if let Some(stderr) = stderr {
        let _ = tokio::time::timeout(Duration::from_secs(2), stderr).await;
    }
    let code = tokio::time::timeout(Duration::from_secs(2), exit).await.ok().and_then(Result::ok).flatten();
    let _ = events.send(Event::Backend { generation, event: BackendEvent::Exited { code, stderr_tail: tail.text() } });
}
