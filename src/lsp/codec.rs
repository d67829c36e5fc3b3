//! `Content-Length` framing over any async byte stream.
//!
//! The reader is deliberately forgiving about what it does not need (junk lines before a
//! header, header names in any case, a `Content-Type` header, `\n` instead of `\r\n`) and
//! strict about what could exhaust memory: every header line, header block and body has an
//! explicit size limit. Errors say whether the stream is still usable: after a bad frame whose
//! length was known the next frame is read normally, so one bad body never ends a session.

use std::io;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Size limits applied while reading frames.
#[derive(Debug, Clone, Copy)]
pub struct FrameLimits {
    /// The longest header line, in bytes, including its line ending.
    pub max_header_line: usize,
    /// The most header lines in one header block (junk lines included).
    pub max_header_lines: usize,
    /// The largest body, in bytes.
    pub max_body: usize,
}

impl Default for FrameLimits {
    fn default() -> Self {
        FrameLimits { max_header_line: 8 * 1024, max_header_lines: 64, max_body: 256 * 1024 * 1024 }
    }
}

/// Why a frame could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("i/o error while reading a frame: {0}")]
    Io(#[from] io::Error),
    #[error("stream ended inside a frame")]
    UnexpectedEof,
    #[error("header line longer than {limit} bytes")]
    HeaderLineTooLong { limit: usize },
    #[error("header block has more than {limit} lines")]
    TooManyHeaderLines { limit: usize },
    #[error("header block has no Content-Length")]
    MissingContentLength,
    #[error("invalid Content-Length value {value:?}")]
    InvalidContentLength { value: String },
    #[error("conflicting Content-Length headers ({first} and {second})")]
    ConflictingContentLength { first: usize, second: usize },
    #[error("body of {length} bytes exceeds the limit of {limit} bytes (skipped)")]
    BodyTooLarge { length: usize, limit: usize },
}

impl FrameError {
    /// Whether the stream can go on being read after this error. I/O errors and an end of
    /// stream inside a frame are final; every other error leaves the reader at the start of
    /// the next header block (or in junk that the tolerant header loop skips).
    pub fn is_fatal(&self) -> bool {
        matches!(self, FrameError::Io(_) | FrameError::UnexpectedEof)
    }
}

/// Reads `Content-Length` frames from a buffered byte stream.
pub struct FrameReader<R> {
    inner: R,
    limits: FrameLimits,
    line: Vec<u8>,
}

impl<R: AsyncBufRead + Unpin> FrameReader<R> {
    pub fn new(inner: R, limits: FrameLimits) -> Self {
        FrameReader { inner, limits, line: Vec::with_capacity(128) }
    }

    /// Reads the next frame body. `Ok(None)` is a clean end of stream between frames.
    pub async fn read_frame(&mut self) -> Result<Option<Vec<u8>>, FrameError> {
        let Some(length) = self.read_header_block().await? else {
            return Ok(None);
        };
        if length > self.limits.max_body {
            // Skip the body so the stream stays in step, then report it.
            let copied = tokio::io::copy(&mut (&mut self.inner).take(length as u64), &mut tokio::io::sink()).await?;
            if copied < length as u64 {
                return Err(FrameError::UnexpectedEof);
            }
            return Err(FrameError::BodyTooLarge { length, limit: self.limits.max_body });
        }
        let mut body = vec![0u8; length];
        match self.inner.read_exact(&mut body).await {
            Ok(_) => Ok(Some(body)),
            Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => Err(FrameError::UnexpectedEof),
            Err(error) => Err(FrameError::Io(error)),
        }
    }

    /// Reads header lines up to the blank line that ends the block and returns the content
    /// length, or `None` at a clean end of stream. Lines that are not `name: value` pairs are
    /// skipped (some servers print banners on stdout before speaking the protocol).
    async fn read_header_block(&mut self) -> Result<Option<usize>, FrameError> {
        let mut content_length: Option<usize> = None;
        let mut saw_header = false;
        let mut lines = 0usize;
        loop {
            let read = self.read_header_line().await?;
            if read == 0 {
                if saw_header {
                    return Err(FrameError::UnexpectedEof);
                }
                return Ok(None);
            }
            let mut line = trim_line_ending(&self.line);
            if line.is_empty() {
                if !saw_header {
                    continue; // a stray blank line between frames
                }
                return match content_length {
                    Some(length) => Ok(Some(length)),
                    None => Err(FrameError::MissingContentLength),
                };
            }
            // The blank line that ends a block does not count towards the limit.
            lines += 1;
            if lines > self.limits.max_header_lines {
                self.skip_rest_of_header_block(0).await?;
                return Err(FrameError::TooManyHeaderLines { limit: self.limits.max_header_lines });
            }
            if !saw_header
                && !starts_with_header_name(line)
                && let Some(start) = embedded_content_length(line)
            {
                // The body of a frame whose length was unusable has no line ending, so it is
                // glued to the next frame's header: resynchronise on that header. A line that
                // is itself a `name: value` header is read as one, whatever its value holds.
                line = &line[start..];
            }
            let Some(colon) = line.iter().position(|&byte| byte == b':') else {
                tracing::debug!(line = %String::from_utf8_lossy(line), "skipping junk line before a header");
                continue;
            };
            let name = &line[..colon];
            let value = String::from_utf8_lossy(&line[colon + 1..]).trim().to_owned();
            if !is_header_name(name) {
                tracing::debug!(line = %String::from_utf8_lossy(line), "skipping junk line before a header");
                continue;
            }
            saw_header = true;
            if name.eq_ignore_ascii_case(b"content-length") {
                let length = parse_content_length(&value)?;
                match content_length {
                    Some(first) if first != length => {
                        // Drain the rest of this block so the next read starts cleanly.
                        self.skip_rest_of_header_block(lines).await?;
                        return Err(FrameError::ConflictingContentLength { first, second: length });
                    }
                    _ => content_length = Some(length),
                }
            }
            // Content-Type and any other header are accepted and ignored: UTF-8 is assumed.
        }
    }

    async fn skip_rest_of_header_block(&mut self, mut lines: usize) -> Result<(), FrameError> {
        loop {
            if self.read_header_line().await? == 0 {
                return Err(FrameError::UnexpectedEof);
            }
            lines += 1;
            if trim_line_ending(&self.line).is_empty() || lines > self.limits.max_header_lines {
                return Ok(());
            }
        }
    }

    /// Reads one line into `self.line` without ever buffering more than the line limit.
    async fn read_header_line(&mut self) -> Result<usize, FrameError> {
        self.line.clear();
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                return Ok(self.line.len());
            }
            let (taken, done) = match available.iter().position(|&byte| byte == b'\n') {
                Some(newline) => (newline + 1, true),
                None => (available.len(), false),
            };
            let room = self.limits.max_header_line.saturating_sub(self.line.len());
            if taken > room {
                // Consume what we looked at, then discard the rest of the overlong line.
                self.inner.consume(taken);
                if !done {
                    self.discard_until_newline().await?;
                }
                self.line.clear();
                return Err(FrameError::HeaderLineTooLong { limit: self.limits.max_header_line });
            }
            self.line.extend_from_slice(&available[..taken]);
            self.inner.consume(taken);
            if done {
                return Ok(self.line.len());
            }
        }
    }

    async fn discard_until_newline(&mut self) -> Result<(), FrameError> {
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                return Ok(());
            }
            match available.iter().position(|&byte| byte == b'\n') {
                Some(newline) => {
                    self.inner.consume(newline + 1);
                    return Ok(());
                }
                None => {
                    let length = available.len();
                    self.inner.consume(length);
                }
            }
        }
    }
}

/// Where a `Content-Length` header starts inside a junk line, if it does (after position 0).
fn embedded_content_length(line: &[u8]) -> Option<usize> {
    const NAME: &[u8] = b"content-length";
    (1..line.len().saturating_sub(NAME.len() - 1)).find(|&start| {
        line[start..start + NAME.len()].eq_ignore_ascii_case(NAME)
            && line[start + NAME.len()..].iter().find(|byte| !byte.is_ascii_whitespace()) == Some(&b':')
    })
}

fn trim_line_ending(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Whether the line is shaped like a header: a header name, then a colon.
fn starts_with_header_name(line: &[u8]) -> bool {
    line.iter().position(|&byte| byte == b':').is_some_and(|colon| is_header_name(&line[..colon]))
}

fn is_header_name(name: &[u8]) -> bool {
    !name.is_empty() && name.iter().all(|&byte| byte.is_ascii_alphanumeric() || byte == b'-')
}

fn parse_content_length(value: &str) -> Result<usize, FrameError> {
    // `usize::from_str` accepts a leading `+`; LSP does not, so check the digits ourselves.
    if value.is_empty() || !value.bytes().all(|byte| byte.is_ascii_digit()) {
        return Err(FrameError::InvalidContentLength { value: value.to_owned() });
    }
    value.parse::<usize>().map_err(|_| FrameError::InvalidContentLength { value: value.to_owned() })
}

/// Writes one frame without flushing, so a writer draining a queue can flush once per batch.
pub async fn write_frame_unflushed<W: AsyncWrite + Unpin>(writer: &mut W, body: &[u8]) -> io::Result<()> {
    let header = format!("Content-Length: {}\r\n\r\n", body.len());
    writer.write_all(header.as_bytes()).await?;
    writer.write_all(body).await
}

/// Writes one frame and flushes it.
pub async fn write_frame<W: AsyncWrite + Unpin>(writer: &mut W, body: &[u8]) -> io::Result<()> {
    write_frame_unflushed(writer, body).await?;
    writer.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{Expect, expect};
    use tokio::io::{AsyncWriteExt, BufReader};

    /// Feeds `input` in chunks of `chunk` bytes and renders every frame or error.
    fn frames(input: &[u8], chunk: usize, limits: FrameLimits) -> String {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let (mut writer, reader) = tokio::io::duplex(64);
            let input = input.to_vec();
            let feeder = tokio::spawn(async move {
                for piece in input.chunks(chunk.max(1)) {
                    writer.write_all(piece).await.unwrap();
                }
            });
            let mut frames = FrameReader::new(BufReader::new(reader), limits);
            let mut out = Vec::new();
            loop {
                match frames.read_frame().await {
                    Ok(Some(body)) => out.push(format!("frame {:?}", String::from_utf8_lossy(&body))),
                    Ok(None) => {
                        out.push("eof".to_owned());
                        break;
                    }
                    Err(error) => {
                        let fatal = error.is_fatal();
                        out.push(format!("error{} {error}", if fatal { "(fatal)" } else { "" }));
                        if fatal {
                            break;
                        }
                    }
                }
            }
            feeder.await.unwrap();
            out.join("\n")
        })
    }

    fn check(input: &[u8], expected: Expect) {
        let whole = frames(input, usize::MAX, FrameLimits::default());
        for chunk in [1, 2, 3, 7] {
            assert_eq!(frames(input, chunk, FrameLimits::default()), whole, "chunk size {chunk}");
        }
        expected.assert_eq(&whole);
    }

    #[test]
    fn reads_plain_frames() {
        check(
            b"Content-Length: 2\r\n\r\n{}Content-Length: 7\r\n\r\n[1,2,3]",
            expect![[r#"
                frame "{}"
                frame "[1,2,3]"
                eof"#]],
        );
    }

    #[test]
    fn header_names_are_case_insensitive_and_content_type_is_ignored() {
        check(
            b"content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}CONTENT-LENGTH:3\n\n[1]",
            expect![[r#"
                frame "{}"
                frame "[1]"
                eof"#]],
        );
    }

    #[test]
    fn skips_junk_lines_before_a_header() {
        check(
            b"Starting server...\r\nversion 1.2 (build)\r\n\r\nContent-Length: 2\r\n\r\n{}",
            expect![[r#"
                frame "{}"
                eof"#]],
        );
    }

    #[test]
    fn zero_length_is_an_empty_body() {
        check(
            b"Content-Length: 0\r\n\r\nContent-Length: 2\r\n\r\n{}",
            expect![[r#"
                frame ""
                frame "{}"
                eof"#]],
        );
    }

    #[test]
    fn missing_negative_and_garbage_lengths_are_errors_that_do_not_end_the_stream() {
        check(
            b"X-Other: 1\r\n\r\nContent-Length: -5\r\n\r\nContent-Length: 1e3\r\n\r\nContent-Length: +2\r\n\r\nContent-Length: 2\r\n\r\n{}",
            expect![[r#"
                error header block has no Content-Length
                error invalid Content-Length value "-5"
                error invalid Content-Length value "1e3"
                error invalid Content-Length value "+2"
                frame "{}"
                eof"#]],
        );
    }

    #[test]
    fn a_header_line_whose_value_holds_another_header_is_one_bad_header() {
        // Found by the frame_decoder fuzz target: a lone `\r` is not a line ending, so the
        // value below is `x\rContent-Length: 2`, not a second header to resynchronise on.
        check(
            b"Content-Length: x\rContent-Length: 2\n\n{}",
            expect![[r#"
                error invalid Content-Length value "x\rContent-Length: 2"
                eof"#]],
        );
    }

    #[test]
    fn a_bad_frame_with_a_body_does_not_take_the_next_frames_with_it() {
        check(
            b"Content-Length: x\r\n\r\n{\"a\":1}Content-Length: 2\r\n\r\n{}Content-Length: 3\r\n\r\n[1]",
            expect![[r#"
                error invalid Content-Length value "x"
                frame "{}"
                frame "[1]"
                eof"#]],
        );
        check(
            b"X-Other: 1\r\n\r\n{\"a\":1}content-length: 2\r\n\r\n{}",
            expect![[r#"
                error header block has no Content-Length
                frame "{}"
                eof"#]],
        );
    }

    #[test]
    fn the_blank_line_ending_a_block_does_not_count_towards_the_line_limit() {
        let limits = FrameLimits { max_header_line: 64, max_header_lines: 2, max_body: 1024 };
        let out = frames(b"Content-Length: 2\r\nX-A: 1\r\n\r\n{}Content-Length: 2\r\n\r\n[]", 3, limits);
        expect![[r#"
            frame "{}"
            frame "[]"
            eof"#]]
        .assert_eq(&out);
    }

    #[test]
    fn duplicate_lengths_must_agree() {
        check(
            b"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}Content-Length: 2\r\nContent-Length: 3\r\n\r\nContent-Length: 2\r\n\r\n[]",
            expect![[r#"
                frame "{}"
                error conflicting Content-Length headers (2 and 3)
                frame "[]"
                eof"#]],
        );
    }

    #[test]
    fn huge_lengths_are_refused_without_allocating() {
        check(
            b"Content-Length: 99999999999999999999999\r\n\r\n",
            expect![[r#"
                error invalid Content-Length value "99999999999999999999999"
                eof"#]],
        );
        let limits = FrameLimits { max_body: 4, ..FrameLimits::default() };
        let out = frames(b"Content-Length: 6\r\n\r\n123456Content-Length: 2\r\n\r\n{}", 3, limits);
        expect![[r#"
            error body of 6 bytes exceeds the limit of 4 bytes (skipped)
            frame "{}"
            eof"#]]
        .assert_eq(&out);
        let out = frames(b"Content-Length: 1000000\r\n\r\n12", 3, limits);
        expect![[r#"error(fatal) stream ended inside a frame"#]].assert_eq(&out);
    }

    #[test]
    fn header_line_and_block_limits_hold() {
        let limits = FrameLimits { max_header_line: 32, max_header_lines: 4, max_body: 1024 };
        let mut input = vec![b'x'; 100];
        input.extend_from_slice(b"\r\nContent-Length: 2\r\n\r\n{}");
        expect![[r#"
            error header line longer than 32 bytes
            frame "{}"
            eof"#]]
        .assert_eq(&frames(&input, 5, limits));
        let input = b"A: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\n\r\n";
        expect![[r#"
            error header block has more than 4 lines
            eof"#]]
        .assert_eq(&frames(input, 5, limits));
    }

    #[test]
    fn eof_inside_a_frame_is_fatal_and_clean_eof_is_not_an_error() {
        check(b"Content-Length: 10\r\n\r\n{}", expect![[r#"error(fatal) stream ended inside a frame"#]]);
        check(b"Content-Length: 10\r\n", expect![[r#"error(fatal) stream ended inside a frame"#]]);
        check(b"", expect![[r#"eof"#]]);
        check(b"\r\n\r\n", expect![[r#"eof"#]]);
    }

    #[test]
    fn invalid_utf8_bodies_are_delivered_as_bytes() {
        let out = frames(b"Content-Length: 3\r\n\r\n\xff\xfe{", 1, FrameLimits::default());
        expect![[r#"
            frame "��{"
            eof"#]]
        .assert_eq(&out);
    }
}
