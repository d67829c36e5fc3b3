//! Fuzzes `FrameReader` with chunk boundaries chosen by the fuzzer.
//!
//! Input layout (so that hand-made seeds stay readable, see `fuzz/corpus/frame_decoder`):
//!
//! ```text
//! byte 0      mode: even = raw stream, odd = scripted stream with a model of the results
//! bytes 1..=4 limits and buffer size: max_header_line, max_header_lines, max_body, BufReader capacity
//! byte 5      number N of chunk-size bytes that follow (N = byte % 16)
//! N bytes     chunk sizes, used in a cycle: low 7 bits = size (0 counts as 1), high bit = the
//!             reader first returns `Pending` (and wakes itself) before handing out that chunk
//! rest        raw mode: the byte stream; scripted mode: drives the script generator
//! ```
//!
//! Properties checked (see docs/fuzzing.md):
//! - every body returned is at most `max_body` bytes, and bodies appear in the stream in order
//!   as disjoint slices;
//! - the reader terminates: at most `len + 1` results for `len` input bytes, the last one being
//!   end of stream or a fatal error, and end of stream stays end of stream;
//! - no `Io` error ever comes out of an in-memory stream;
//! - the sequence of results is the same whatever the chunking and buffer size (compared with
//!   the whole input handed out in one read through a default-sized buffer);
//! - scripted mode: the results are exactly those predicted by a model of the stream (frames,
//!   junk lines, stray blank lines, bad frames of each kind, overlong lines, too many header
//!   lines, truncated endings). In particular a well-formed frame that follows garbage is
//!   recovered whenever the garbage is made of whole lines none of which is a header line or
//!   contains `Content-Length` (where the reader resynchronises), and the junk lines since the
//!   last frame plus the frame's own header lines fit in `max_header_lines`.
#![no_main]

use std::cell::RefCell;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use arbitrary::Unstructured;
use fslens::lsp::codec::{FrameError, FrameLimits, FrameReader};
use libfuzzer_sys::fuzz_target;
use tokio::io::{AsyncRead, BufReader, ReadBuf};

/// An in-memory stream that hands its bytes out in the given chunk sizes.
struct Chunked<'a> {
    data: &'a [u8],
    position: usize,
    /// Chunk-size bytes, used in a cycle; empty means "everything at once".
    chunks: &'a [u8],
    next: usize,
    pended: bool,
}

impl AsyncRead for Chunked<'_> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let left = this.data.len() - this.position;
        if left == 0 {
            return Poll::Ready(Ok(()));
        }
        let size = if this.chunks.is_empty() {
            usize::MAX
        } else {
            let byte = this.chunks[this.next % this.chunks.len()];
            if byte & 0x80 != 0 && !this.pended {
                this.pended = true;
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            usize::from(byte & 0x7f).max(1)
        };
        this.pended = false;
        this.next += 1;
        let size = size.min(left).min(buf.remaining());
        buf.put_slice(&this.data[this.position..this.position + size]);
        this.position += size;
        Poll::Ready(Ok(()))
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Event {
    Frame(Vec<u8>),
    Error { kind: &'static str, text: String, fatal: bool },
    Eof,
}

fn kind_of(error: &FrameError) -> &'static str {
    match error {
        FrameError::Io(_) => "Io",
        FrameError::UnexpectedEof => "UnexpectedEof",
        FrameError::HeaderLineTooLong { .. } => "HeaderLineTooLong",
        FrameError::TooManyHeaderLines { .. } => "TooManyHeaderLines",
        FrameError::MissingContentLength => "MissingContentLength",
        FrameError::InvalidContentLength { .. } => "InvalidContentLength",
        FrameError::ConflictingContentLength { .. } => "ConflictingContentLength",
        FrameError::BodyTooLarge { .. } => "BodyTooLarge",
    }
}

thread_local! {
    static RUNTIME: RefCell<tokio::runtime::Runtime> = RefCell::new(
        tokio::runtime::Builder::new_current_thread().build().expect("current-thread runtime"),
    );
}

/// Reads `data` to the end (or to a fatal error) and checks the per-run properties.
fn run(data: &[u8], limits: FrameLimits, chunks: &[u8], capacity: usize) -> Vec<Event> {
    RUNTIME.with(|runtime| {
        runtime.borrow().block_on(async {
            let stream = Chunked { data, position: 0, chunks, next: 0, pended: false };
            let mut frames = FrameReader::new(BufReader::with_capacity(capacity, stream), limits);
            let mut events = Vec::new();
            loop {
                // Every result but the last consumes at least one byte.
                assert!(
                    events.len() <= data.len(),
                    "reader does not terminate: {} results from {} bytes",
                    events.len(),
                    data.len()
                );
                match frames.read_frame().await {
                    Ok(Some(body)) => {
                        assert!(body.len() <= limits.max_body, "body of {} bytes over max_body {}", body.len(), limits.max_body);
                        events.push(Event::Frame(body));
                    }
                    Ok(None) => {
                        events.push(Event::Eof);
                        // End of stream is sticky.
                        assert!(matches!(frames.read_frame().await, Ok(None)), "read after end of stream");
                        break;
                    }
                    Err(error) => {
                        assert!(!matches!(error, FrameError::Io(_)), "i/o error from memory: {error}");
                        let fatal = error.is_fatal();
                        events.push(Event::Error { kind: kind_of(&error), text: error.to_string(), fatal });
                        if fatal {
                            break;
                        }
                    }
                }
            }
            // Bodies are slices of the stream, in order, not overlapping.
            let mut at = 0;
            for event in &events {
                if let Event::Frame(body) = event {
                    let found = find(&data[at..], body).unwrap_or_else(|| panic!("body {body:?} is not in the rest of the stream"));
                    at += found + body.len();
                }
            }
            events
        })
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    haystack.windows(needle.len()).position(|window| window == needle)
}

/// What the model expects; errors are compared by kind (and by text where it is given).
#[derive(Debug)]
enum Expected {
    Frame(Vec<u8>),
    Error { kind: &'static str, text: Option<String> },
    Eof,
}

fn matches_expected(event: &Event, expected: &Expected) -> bool {
    match (event, expected) {
        (Event::Frame(got), Expected::Frame(want)) => got == want,
        (Event::Error { kind, text, .. }, Expected::Error { kind: want_kind, text: want_text }) => {
            kind == want_kind && want_text.as_ref().is_none_or(|want| want == text)
        }
        (Event::Eof, Expected::Eof) => true,
        _ => false,
    }
}

/// Junk content: a non-empty line body that is not a header line and has no line ending.
fn junk(u: &mut Unstructured<'_>, max: usize) -> Vec<u8> {
    let len = u.int_in_range(0..=max).unwrap_or(0);
    let mut content: Vec<u8> = u.bytes(len).unwrap_or(&[]).iter().copied().filter(|&byte| byte != b'\n').collect();
    if content.is_empty() || content.last() == Some(&b'\r') {
        content.push(b'x');
    }
    // A `Content-Length` inside a junk line is where the reader resynchronises (the body of a
    // bad frame glued to the next header): junk must not contain one.
    let name = b"content-length";
    let mut start = 0;
    while start + name.len() <= content.len() {
        if content[start..start + name.len()].eq_ignore_ascii_case(name) {
            content[start] = b'_';
        }
        start += 1;
    }
    if content.contains(&b':') && content[0] != b' ' {
        // A space is not a header-name character, so this can never parse as `name: value`.
        content.insert(0, b' ');
    }
    content
}

/// Builds a stream from segments and predicts what the reader returns for it.
fn script(u: &mut Unstructured<'_>, limits: FrameLimits) -> (Vec<u8>, Vec<Expected>) {
    let mut out = Vec::new();
    let mut expected = Vec::new();
    // Lines counted against max_header_lines in the header block being read.
    let mut counted = 0usize;
    // Junk is only added while a following frame with two header lines and its blank line
    // still fits in max_header_lines: beyond that the reader rightly refuses the block.
    let room_for_junk = |counted: usize| counted + 1 + 3 <= limits.max_header_lines;
    let mut segments = 0;
    while !u.is_empty() && segments < 64 {
        segments += 1;
        let eol: &[u8] = if u.arbitrary::<bool>().unwrap_or(true) { b"\r\n" } else { b"\n" };
        match u.int_in_range(0..=6u8).unwrap_or(0) {
            0 => {
                let len = u.int_in_range(0..=limits.max_body + 8).unwrap_or(0);
                let body = u.bytes(len).unwrap_or(&[]).to_vec();
                let name = if u.arbitrary::<bool>().unwrap_or(false) { "content-length" } else { "Content-Length" };
                out.extend_from_slice(format!("{name}: {}", body.len()).as_bytes());
                out.extend_from_slice(eol);
                if u.arbitrary::<bool>().unwrap_or(false) {
                    out.extend_from_slice(b"Content-Type: application/vscode-jsonrpc; charset=utf-8");
                    out.extend_from_slice(eol);
                }
                out.extend_from_slice(eol);
                out.extend_from_slice(&body);
                expected.push(if body.len() <= limits.max_body {
                    Expected::Frame(body)
                } else {
                    Expected::Error {
                        kind: "BodyTooLarge",
                        text: Some(format!(
                            "body of {} bytes exceeds the limit of {} bytes (skipped)",
                            body.len(),
                            limits.max_body
                        )),
                    }
                });
                counted = 0;
            }
            1 => {
                let content = junk(u, 100);
                let line_len = content.len() + eol.len();
                if line_len > limits.max_header_line {
                    out.extend_from_slice(&content);
                    out.extend_from_slice(eol);
                    expected.push(Expected::Error { kind: "HeaderLineTooLong", text: None });
                    counted = 0;
                } else if room_for_junk(counted) {
                    out.extend_from_slice(&content);
                    out.extend_from_slice(eol);
                    counted += 1;
                }
            }
            2 => out.extend_from_slice(eol),
            3 => {
                out.extend_from_slice(b"X-Other: 1");
                out.extend_from_slice(eol);
                out.extend_from_slice(eol);
                expected.push(Expected::Error { kind: "MissingContentLength", text: None });
                counted = 0;
            }
            4 => {
                const INVALID: &[&str] = &["", "-5", "+2", "1e3", "0x10", "99999999999999999999999", " 12 3", "\u{ff12}"];
                let value: Vec<u8> = match u.choose_index(INVALID.len() + 1).unwrap_or(0) {
                    index if index < INVALID.len() => INVALID[index].as_bytes().to_vec(),
                    _ => {
                        let mut value = b"x".to_vec();
                        let len = u.int_in_range(0..=20).unwrap_or(0);
                        value.extend(u.bytes(len).unwrap_or(&[]).iter().filter(|&&byte| byte != b'\n'));
                        value
                    }
                };
                out.extend_from_slice(b"Content-Length: ");
                out.extend_from_slice(&value);
                out.extend_from_slice(eol);
                out.extend_from_slice(eol);
                expected.push(Expected::Error { kind: "InvalidContentLength", text: None });
                counted = 0;
            }
            5 => {
                let first = u.int_in_range(0..=1000usize).unwrap_or(0);
                let mut second = u.int_in_range(0..=1000usize).unwrap_or(1);
                if second == first {
                    second += 1;
                }
                out.extend_from_slice(format!("Content-Length: {first}").as_bytes());
                out.extend_from_slice(eol);
                out.extend_from_slice(format!("Content-Length: {second}").as_bytes());
                out.extend_from_slice(eol);
                out.extend_from_slice(eol);
                expected.push(Expected::Error {
                    kind: "ConflictingContentLength",
                    text: Some(format!("conflicting Content-Length headers ({first} and {second})")),
                });
                counted = 0;
            }
            _ => {
                for _ in 0..=limits.max_header_lines {
                    out.extend_from_slice(b"X-Header: v");
                    out.extend_from_slice(eol);
                }
                out.extend_from_slice(eol);
                expected.push(Expected::Error { kind: "TooManyHeaderLines", text: None });
                counted = 0;
            }
        }
    }
    let eol: &[u8] = b"\r\n";
    match u.int_in_range(0..=3u8).unwrap_or(0) {
        0 => expected.push(Expected::Eof),
        1 => {
            // A body cut short, whether or not it would have been over the limit.
            let declared = u.int_in_range(1..=limits.max_body + 8).unwrap_or(1);
            let given = u.int_in_range(0..=declared - 1).unwrap_or(0);
            out.extend_from_slice(format!("Content-Length: {declared}").as_bytes());
            out.extend_from_slice(eol);
            out.extend_from_slice(eol);
            out.extend(std::iter::repeat_n(b'.', given));
            expected.push(Expected::Error { kind: "UnexpectedEof", text: None });
        }
        2 => {
            out.extend_from_slice(b"Content-Length: 5");
            out.extend_from_slice(eol);
            expected.push(Expected::Error { kind: "UnexpectedEof", text: None });
        }
        _ => {
            // A last junk line without a line ending.
            let content = junk(u, 100);
            if content.len() > limits.max_header_line {
                out.extend_from_slice(&content);
                expected.push(Expected::Error { kind: "HeaderLineTooLong", text: None });
            } else if room_for_junk(counted) {
                out.extend_from_slice(&content);
            }
            expected.push(Expected::Eof);
        }
    }
    (out, expected)
}

fuzz_target!(|data: &[u8]| {
    let mut config = [0u8; 6];
    let head = data.len().min(6);
    config[..head].copy_from_slice(&data[..head]);
    let rest = &data[head..];
    let chunk_count = usize::from(config[5] % 16).min(rest.len());
    let (chunks, rest) = rest.split_at(chunk_count);
    let scripted = config[0] % 2 == 1;

    let (limits, capacity) = if scripted {
        (
            FrameLimits {
                max_header_line: 64 + usize::from(config[1] % 64),
                max_header_lines: 4 + usize::from(config[2] % 12),
                max_body: usize::from(config[3] % 64),
            },
            1 + usize::from(config[4] % 64),
        )
    } else {
        (
            FrameLimits {
                max_header_line: usize::from(config[1] % 48),
                max_header_lines: usize::from(config[2] % 8),
                max_body: usize::from(config[3] % 64),
            },
            1 + usize::from(config[4] % 32),
        )
    };

    let (stream, expected) = if scripted {
        let (stream, expected) = script(&mut Unstructured::new(rest), limits);
        (stream, Some(expected))
    } else {
        (rest.to_vec(), None)
    };

    let whole = run(&stream, limits, &[], 8192);
    let chunked = run(&stream, limits, chunks, capacity);
    assert_eq!(chunked, whole, "results depend on chunking (chunks {chunks:?}, buffer {capacity})");
    let one_byte = run(&stream, limits, &[1], 1);
    assert_eq!(one_byte, whole, "results depend on chunking (one byte at a time)");

    if let Some(expected) = expected {
        assert!(
            whole.len() == expected.len() && whole.iter().zip(&expected).all(|(got, want)| matches_expected(got, want)),
            "results differ from the model\n stream: {:?}\n    got: {whole:?}\n   want: {expected:?}",
            String::from_utf8_lossy(&stream)
        );
    }
});
