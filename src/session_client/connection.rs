//! One JSON-RPC connection (Content-Length framing) to an fslens session: a writer task, a
//! reader task that hands each answer to the caller waiting for it, cancellation that waits
//! for the session to confirm it (`-32800`), and the readiness the session announced last
//! (`fslens/status`). Requests from the session are answered as an editor without a UI would.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::sync::{mpsc, oneshot, watch};

use crate::lsp::codec::{FrameLimits, FrameReader, write_frame};
use crate::lsp::ext;
use crate::lsp::message::{Message, MessageKind, RequestId, ResponseError};

/// How long a client waits for the session to confirm a cancellation (`-32800`).
pub const CANCEL_CONFIRMATION_TIMEOUT: Duration = Duration::from_secs(3);

/// The answer to one request: its result, or the session's JSON-RPC error.
pub type SessionAnswer = Result<Value, ResponseError>;

/// Why a request got no answer at all.
#[derive(Debug, thiserror::Error)]
pub enum SessionCallError {
    #[error("the fslens session closed the connection")]
    Closed,
    #[error("cancelled by the caller; the session {}", if *.confirmed { "confirmed the cancellation (-32800)" } else { "did not confirm the cancellation in time" })]
    Cancelled { confirmed: bool },
}

/// The readiness the session last announced in `fslens/status`.
#[derive(Debug, Clone, Default)]
pub struct AnnouncedStatus {
    pub state: Option<String>,
    pub reason: Option<String>,
}

/// One JSON-RPC connection to a session: a writer task, a reader task dispatching answers to
/// their callers, and the readiness the session announced last.
pub struct SessionConnection {
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    pending: Arc<Mutex<HashMap<RequestId, oneshot::Sender<SessionAnswer>>>>,
    next_id: AtomicI64,
    closed: Arc<AtomicBool>,
    announced: watch::Receiver<AnnouncedStatus>,
}

impl SessionConnection {
    /// Starts the reader and writer tasks over a byte stream. Requests from the session
    /// (only a session the client started, whose editor it is, sends any) are answered like
    /// an editor without a UI would: `workspace/applyEdit` is declined, the rest get null.
    pub fn start<R, W>(reader: R, writer: W) -> Arc<SessionConnection>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (outgoing, queue) = mpsc::unbounded_channel::<Vec<u8>>();
        let pending: Arc<Mutex<HashMap<RequestId, oneshot::Sender<SessionAnswer>>>> = Arc::default();
        let closed = Arc::new(AtomicBool::new(false));
        let (announce, announced) = watch::channel(AnnouncedStatus::default());
        tokio::spawn(session_writer_task(writer, queue, closed.clone()));
        tokio::spawn(session_reader_task(
            FrameReader::new(BufReader::new(reader), FrameLimits::default()),
            pending.clone(),
            closed.clone(),
            outgoing.clone(),
            announce,
        ));
        Arc::new(SessionConnection { outgoing, pending, next_id: AtomicI64::new(1), closed, announced })
    }

    /// Whether the session ended this connection.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// The readiness the session announced last (`fslens/status`), if any.
    pub fn announced_status(&self) -> AnnouncedStatus {
        self.announced.borrow().clone()
    }

    pub fn notify(&self, method: &str, params: Value) -> Result<(), SessionCallError> {
        self.outgoing.send(Message::notification(method, params).bytes().to_vec()).map_err(|_| SessionCallError::Closed)
    }

    /// Sends a request and waits for its answer.
    pub async fn call(&self, method: &str, params: Value) -> Result<SessionAnswer, SessionCallError> {
        let (_id, answer) = self.send_request(method, params)?;
        answer.await.map_err(|_| SessionCallError::Closed)
    }

    /// Sends a request and waits for its answer or for `cancelled` to finish first; in that
    /// case `$/cancelRequest` goes to the session, which stops the command (or the forwarded
    /// FSAC request) and answers `-32800`.
    pub async fn call_cancellable(
        &self,
        method: &str,
        params: Value,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Result<SessionAnswer, SessionCallError> {
        let (id, mut answer) = self.send_request(method, params)?;
        tokio::select! {
            biased;
            result = &mut answer => result.map_err(|_| SessionCallError::Closed),
            () = cancelled => {
                self.notify("$/cancelRequest", json!({ "id": id.to_json() }))?;
                let confirmed = match tokio::time::timeout(CANCEL_CONFIRMATION_TIMEOUT, answer).await {
                    Ok(Ok(Err(error))) => error.code == crate::lsp::message::error_codes::REQUEST_CANCELLED,
                    _ => false,
                };
                Err(SessionCallError::Cancelled { confirmed })
            }
        }
    }

    fn send_request(
        &self,
        method: &str,
        params: Value,
    ) -> Result<(RequestId, oneshot::Receiver<SessionAnswer>), SessionCallError> {
        let id = RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed));
        let (reply, answer) = oneshot::channel();
        if let Ok(mut pending) = self.pending.lock() {
            pending.insert(id.clone(), reply);
        }
        if self.is_closed()
            || self.outgoing.send(Message::request(id.clone(), method, params).bytes().to_vec()).is_err()
        {
            if let Ok(mut pending) = self.pending.lock() {
                pending.remove(&id);
            }
            return Err(SessionCallError::Closed);
        }
        Ok((id, answer))
    }
}

async fn session_writer_task<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut queue: mpsc::UnboundedReceiver<Vec<u8>>,
    closed: Arc<AtomicBool>,
) {
    while let Some(body) = queue.recv().await {
        if let Err(error) = write_frame(&mut writer, &body).await {
            tracing::info!("the session connection stopped accepting writes: {error}");
            closed.store(true, Ordering::SeqCst);
            return;
        }
    }
}

async fn session_reader_task<R: AsyncRead + Unpin>(
    mut reader: FrameReader<BufReader<R>>,
    pending: Arc<Mutex<HashMap<RequestId, oneshot::Sender<SessionAnswer>>>>,
    closed: Arc<AtomicBool>,
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    announce: watch::Sender<AnnouncedStatus>,
) {
    loop {
        let body = match reader.read_frame().await {
            Ok(Some(body)) => body,
            Ok(None) => break,
            Err(error) if error.is_fatal() => {
                tracing::info!("the session connection ended: {error}");
                break;
            }
            Err(error) => {
                tracing::warn!("skipping a bad frame from the session: {error}");
                continue;
            }
        };
        let message = match Message::parse(body) {
            Ok(message) => message,
            Err(error) => {
                tracing::warn!("skipping an unreadable message from the session: {error}");
                continue;
            }
        };
        match &message.kind {
            MessageKind::Response { id, .. } => {
                let answer = match message.error() {
                    Some(error) => Err(error),
                    None => Ok(message.result().unwrap_or(Value::Null)),
                };
                let reply = pending.lock().ok().and_then(|mut pending| pending.remove(id));
                if let Some(reply) = reply {
                    let _ = reply.send(answer);
                }
            }
            MessageKind::Notification { method } if method == ext::notifications::STATUS => {
                let params = message.params().unwrap_or(Value::Null);
                let _ = announce.send(AnnouncedStatus {
                    state: params["state"].as_str().map(str::to_owned),
                    reason: params["reason"].as_str().map(str::to_owned),
                });
            }
            MessageKind::Notification { .. } => {}
            MessageKind::Request { id, method } => {
                // Only a session the client started asks it anything (it is that session's
                // editor). A client has no buffers and no UI: it declines edits and answers
                // everything else with null, as an editor without the feature would. (It
                // declares no `workspace.applyEdit` capability, so the session does not ask.)
                let result = if method == "workspace/applyEdit" {
                    json!({ "applied": false, "failureReason": "this fslens client has no editor: it returns edits instead of applying them" })
                } else {
                    Value::Null
                };
                let _ = outgoing.send(Message::response_ok(id.clone(), result).bytes().to_vec());
            }
        }
    }
    closed.store(true, Ordering::SeqCst);
    // Every caller still waiting learns that the session is gone.
    if let Ok(mut pending) = pending.lock() {
        pending.clear();
    }
}
