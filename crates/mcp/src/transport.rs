//! stdio framing in front of rmcp: every input line is checked before rmcp sees it, so input
//! that is not JSON gets a JSON-RPC parse error (rmcp drops it silently) and a line too long to
//! be a request gets an error instead of being discarded. Output lines from the server and these
//! errors never interleave.

use std::sync::Arc;

use serde::de::IgnoredAny;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// The longest request line accepted (a 10 MB argument still fits, and is refused by the tool).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

const PARSE_ERROR: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error: the line is not JSON; send one JSON-RPC message per line\"}}\n";
const TOO_LARGE: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Invalid request: the message is larger than 16 MiB\"}}\n";

enum Line {
    Ok,
    TooLong,
    Eof,
}

/// Reads one `\n`-terminated line into `buf`, keeping at most `max` bytes (the rest of a longer
/// line is skipped).
async fn read_line(reader: &mut (impl AsyncBufRead + Unpin), buf: &mut Vec<u8>, max: usize) -> std::io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    loop {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(if buf.is_empty() && !too_long {
                Line::Eof
            } else if too_long {
                Line::TooLong
            } else {
                Line::Ok
            });
        }
        let (take, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if !too_long {
            if buf.len() + take > max {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(&chunk[..take]);
            }
        }
        reader.consume(take);
        if done {
            return Ok(if too_long { Line::TooLong } else { Line::Ok });
        }
    }
}

/// Copies checked lines from `input` to `to_server`; answers bad lines on `out` directly.
pub async fn pump_input<W: AsyncWrite + Unpin>(
    input: impl AsyncRead + Unpin,
    mut to_server: impl AsyncWrite + Unpin,
    out: Arc<Mutex<W>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::with_capacity(64 * 1024, input);
    let mut buf = Vec::new();
    loop {
        let reply: Option<&[u8]> = match read_line(&mut reader, &mut buf, MAX_LINE_BYTES).await? {
            Line::Eof => break,
            Line::TooLong => Some(TOO_LARGE),
            Line::Ok => {
                let text = buf.strip_suffix(b"\n").unwrap_or(&buf);
                let text = text.strip_suffix(b"\r").unwrap_or(text);
                if text.iter().all(u8::is_ascii_whitespace) {
                    None
                } else if serde_json::from_slice::<IgnoredAny>(text).is_err() {
                    Some(PARSE_ERROR)
                } else {
                    to_server.write_all(text).await?;
                    to_server.write_all(b"\n").await?;
                    to_server.flush().await?;
                    None
                }
            }
        };
        if let Some(reply) = reply {
            let mut out = out.lock().await;
            out.write_all(reply).await?;
            out.flush().await?;
        }
    }
    to_server.shutdown().await
}

/// Copies the server's output to `out`, one whole line at a time.
pub async fn pump_output<W: AsyncWrite + Unpin>(
    from_server: impl AsyncRead + Unpin,
    out: Arc<Mutex<W>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::with_capacity(64 * 1024, from_server);
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).await? == 0 {
            return Ok(());
        }
        let mut out = out.lock().await;
        out.write_all(&line).await?;
        out.flush().await?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn run(input: &[u8]) -> (Vec<u8>, Vec<u8>) {
        let (server_side, mut test_side) = tokio::io::duplex(1 << 20);
        let out = Arc::new(Mutex::new(Vec::new()));
        pump_input(input, server_side, Arc::clone(&out)).await.expect("pump");
        let mut forwarded = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(&mut test_side, &mut forwarded).await.expect("read");
        let answered = out.lock().await.clone();
        (forwarded, answered)
    }

    #[tokio::test(flavor = "current_thread")]
    async fn json_passes_garbage_is_answered() {
        let (fwd, ans) = run(b"{\"a\":1}\r\nnot json\n\n   \n[1,2]").await;
        assert_eq!(fwd, b"{\"a\":1}\n[1,2]\n");
        assert_eq!(ans, PARSE_ERROR);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn oversized_lines_are_refused_and_skipped() {
        let mut input = vec![b'"'; MAX_LINE_BYTES + 10];
        input.extend_from_slice(b"\"\n{\"ok\":true}\n");
        let (fwd, ans) = run(&input).await;
        assert_eq!(fwd, b"{\"ok\":true}\n");
        assert_eq!(ans, TOO_LARGE);
    }
}
