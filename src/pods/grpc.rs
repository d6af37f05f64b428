//! One unary gRPC call over a unix socket: HTTP/2 (hyper's client) with a
//! length-prefixed protobuf message each way, as gRPC frames them. Only
//! what the kubelet's `List` needs: no compression, no streaming; the
//! answer is bounded in size and the whole call in time.

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::path::Path;
use std::time::Duration;

/// The largest answer nvq reads (the kubelet's own default send limit is
/// far larger; 50 pods with 8 GPUs each take a few KiB).
pub const MAX_ANSWER: usize = 16 << 20;

/// Why a call gave nothing.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    #[error("cannot connect to {0}: {1}")]
    Connect(String, std::io::Error),
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    #[error("HTTP/2: {0}")]
    Http(String),
    #[error("the server answered HTTP status {0}")]
    Status(u16),
    #[error("gRPC status {code}: {message}")]
    Grpc { code: String, message: String },
    #[error("a malformed answer: {0}")]
    Malformed(String),
}

/// Call `path` (`/package.Service/Method`) on the gRPC server at `socket`
/// with the encoded request `msg`; the encoded answer, within `timeout`.
pub async fn unary(
    socket: &Path,
    path: &str,
    msg: Vec<u8>,
    timeout: Duration,
) -> Result<Vec<u8>, CallError> {
    match tokio::time::timeout(timeout, call(socket, path, msg)).await {
        Ok(r) => r,
        Err(_) => Err(CallError::Timeout(timeout)),
    }
}

async fn call(socket: &Path, path: &str, msg: Vec<u8>) -> Result<Vec<u8>, CallError> {
    let stream = tokio::net::UnixStream::connect(socket)
        .await
        .map_err(|e| CallError::Connect(socket.display().to_string(), e))?;
    let (mut send, conn) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
            .await
            .map_err(|e| CallError::Http(e.to_string()))?;
    // The connection is driven by a task of its own, aborted when the call
    // ends or is given up (its timeout), so no connection outlives it.
    let _conn = AbortOnDrop(tokio::spawn(conn).abort_handle());
    let req = hyper::Request::post(format!("http://localhost{path}"))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(Full::new(Bytes::from(frame(&msg))))
        .map_err(|e| CallError::Http(e.to_string()))?;
    let resp = send
        .send_request(req)
        .await
        .map_err(|e| CallError::Http(e.to_string()))?;
    let (head, body) = resp.into_parts();
    if head.status != hyper::StatusCode::OK {
        return Err(CallError::Status(head.status.as_u16()));
    }
    // A "trailers-only" answer carries its status in the headers.
    status(&head.headers)?;
    let got = Limited::new(body, MAX_ANSWER + 5)
        .collect()
        .await
        .map_err(|e| CallError::Http(e.to_string()))?;
    if let Some(trailers) = got.trailers() {
        status(trailers)?;
    } else if !head.headers.contains_key("grpc-status") {
        return Err(CallError::Malformed("no grpc-status".into()));
    }
    unframe(&got.to_bytes())
}

/// Aborts a task when dropped.
struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A gRPC status other than OK is an error.
fn status(h: &hyper::HeaderMap) -> Result<(), CallError> {
    match h.get("grpc-status").map(|v| v.to_str().unwrap_or("?")) {
        None | Some("0") => Ok(()),
        Some(code) => Err(CallError::Grpc {
            code: code.to_string(),
            message: h
                .get("grpc-message")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .chars()
                .take(200)
                .collect(),
        }),
    }
}

/// One gRPC message: a 0 (not compressed), its length (u32, big-endian), itself.
pub fn frame(msg: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(msg.len() + 5);
    out.push(0);
    out.extend_from_slice(&(msg.len() as u32).to_be_bytes());
    out.extend_from_slice(msg);
    out
}

/// The one message of a unary answer.
pub fn unframe(body: &[u8]) -> Result<Vec<u8>, CallError> {
    let bad = |why: &str| Err(CallError::Malformed(why.into()));
    let Some((head, rest)) = body.split_first_chunk::<5>() else {
        return bad("shorter than a gRPC frame");
    };
    if head[0] != 0 {
        return bad("a compressed or unknown frame");
    }
    let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
    if len > MAX_ANSWER {
        return bad("a message over 16 MiB");
    }
    if rest.len() != len {
        return bad("a frame whose length is not the body's");
    }
    Ok(rest.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_bad_frames_are_refused() {
        let f = frame(b"abc");
        assert_eq!(f, [0, 0, 0, 0, 3, b'a', b'b', b'c']);
        assert_eq!(unframe(&f).ok(), Some(b"abc".to_vec()));
        assert_eq!(unframe(&frame(b"")).ok(), Some(Vec::new()));
        for bad in [
            &b""[..],
            &[0, 0, 0],
            &[1, 0, 0, 0, 0],
            &[0, 0, 0, 0, 4, 1],
            &[0, 0, 0, 0, 1, 1, 2],
            &[0, 255, 255, 255, 255],
        ] {
            assert!(unframe(bad).is_err(), "{bad:?}");
        }
    }
}
