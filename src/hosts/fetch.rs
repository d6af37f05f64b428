//! One bounded HTTP(S) GET of a node, for `--hosts`.
//!
//! Every exchange is bounded: it ends by its deadline whatever the node
//! does (a node that never answers, or drips a byte a second, is late), an
//! answer's head may hold at most [`MAX_HEAD`] bytes and its body
//! [`MAX_BODY`], and only a `200` answer is read. Credentials go only in
//! the `Authorization` header, never in a URL or a message.

use super::config::Credentials;
use super::list::Host;
use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper::header::{HeaderValue, AUTHORIZATION, HOST, USER_AGENT};
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use std::sync::Arc;
use std::time::Instant;
use tokio_rustls::rustls;

/// The most bytes of an answer's body read.
pub const MAX_BODY: usize = 8 << 20;

/// The most bytes of an answer's head (status line and headers).
pub const MAX_HEAD: usize = 16 * 1024;

/// Why a node gave no answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// No connection (refused, unreachable, unknown name, TLS refused).
    Connect(String),
    /// The deadline passed first.
    Late,
    /// An answer other than 200: its status and the first line of its body.
    Status(u16, String),
    /// The body is larger than [`MAX_BODY`].
    TooLarge,
    /// Not HTTP, or cut short.
    Broken(String),
    /// An `ssh://` node has no `nvq` on its `PATH`.
    Missing,
    /// An `ssh://` node's nvq does not know `nvq serve --answer`.
    TooOld,
    /// A `/metrics` node's exporter (named) lists no processes.
    NoProcesses(&'static str),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Connect(why) => write!(f, "cannot connect: {why}"),
            Failure::Late => f.write_str("no answer in time"),
            Failure::Status(code, line) if line.is_empty() => write!(f, "answered HTTP {code}"),
            Failure::Status(code, line) => write!(f, "answered HTTP {code}: {line}"),
            Failure::TooLarge => write!(f, "answered more than {} MiB", MAX_BODY >> 20),
            Failure::Broken(why) => write!(f, "broken answer: {why}"),
            Failure::Missing => f.write_str("nvq is not installed there"),
            Failure::TooOld => f.write_str("its nvq is too old to answer over ssh"),
            Failure::NoProcesses(exporter) => write!(f, "its {exporter} lists no processes"),
        }
    }
}

impl Failure {
    /// The line nvq says about `host` (its name as shown) failing so.
    pub fn about(&self, host: &str) -> String {
        match self {
            Failure::Missing => format!("nvq is not installed on {host}"),
            Failure::TooOld => format!(
                "nvq on {host} is too old (it has no `nvq serve --answer`, which ssh:// nodes run)"
            ),
            f => format!("{host}: {f}"),
        }
    }
}

/// How nvq reaches the nodes: TLS settings and credentials, shared by all.
#[derive(Clone)]
pub struct Client {
    tls: Option<Arc<rustls::ClientConfig>>,
    /// The name a TLS node's certificate must hold, when not the host's.
    server_name: Option<String>,
    auth: Option<HeaderValue>,
}

impl Client {
    /// A client with these TLS settings (for `https://` nodes) and credentials.
    pub fn new(
        tls: Option<Arc<rustls::ClientConfig>>,
        server_name: Option<String>,
        credentials: Option<&Credentials>,
    ) -> Self {
        let auth = credentials.and_then(|c| {
            let mut v = HeaderValue::from_str(&c.header()).ok()?;
            v.set_sensitive(true);
            Some(v)
        });
        Client {
            tls,
            server_name,
            auth,
        }
    }

    /// A connection to `host`, opened by its first request.
    pub fn conn(&self, host: Host) -> Conn {
        Conn {
            client: self.clone(),
            host,
            runtime: None,
            sender: None,
            master: None,
            last: None,
        }
    }

    /// Connect to `host`: TCP, then TLS for an `https://` node, then HTTP/1.1.
    async fn connect(&self, host: &Host) -> Result<Sender, Failure> {
        let tcp = tokio::net::TcpStream::connect((host.host.as_str(), host.port))
            .await
            .map_err(|e| Failure::Connect(e.to_string()))?;
        let _ = tcp.set_nodelay(true);
        if host.tls {
            let config = self
                .tls
                .clone()
                .ok_or_else(|| Failure::Connect("no TLS settings for an https:// node".into()))?;
            let name = self.server_name.as_deref().unwrap_or(&host.host);
            let name = rustls::pki_types::ServerName::try_from(name.to_string())
                .map_err(|_| Failure::Connect("not a valid TLS server name".into()))?;
            let tls = tokio_rustls::TlsConnector::from(config)
                .connect(name, tcp)
                .await
                .map_err(|e| Failure::Connect(format!("TLS: {e}")))?;
            handshake(TokioIo::new(tls)).await
        } else {
            handshake(TokioIo::new(tcp)).await
        }
    }

    /// One GET on an open connection: the body of a `200` answer.
    async fn request(
        &self,
        sender: &mut Sender,
        host: &Host,
        uri: &str,
    ) -> Result<Vec<u8>, Failure> {
        let mut req = Request::get(uri)
            .header(USER_AGENT, concat!("nvq/", env!("CARGO_PKG_VERSION")))
            .body(Empty::<Bytes>::new())
            .map_err(|e| Failure::Broken(e.to_string()))?;
        let authority =
            HeaderValue::from_str(&host.authority()).map_err(|e| Failure::Broken(e.to_string()))?;
        req.headers_mut().insert(HOST, authority);
        if let Some(a) = &self.auth {
            req.headers_mut().insert(AUTHORIZATION, a.clone());
        }
        let res = sender
            .send_request(req)
            .await
            .map_err(|e| Failure::Broken(e.to_string()))?;
        let status = res.status();
        let mut body = res.into_body();
        let mut out = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = match frame {
                Ok(f) => f,
                // A refusal cut short still says what it refused with.
                Err(_) if status != StatusCode::OK => break,
                Err(e) => return Err(Failure::Broken(e.to_string())),
            };
            if let Some(data) = frame.data_ref() {
                if out.len() + data.len() > MAX_BODY {
                    return Err(Failure::TooLarge);
                }
                out.extend_from_slice(data);
            }
            if status != StatusCode::OK && out.len() >= 512 {
                break;
            }
        }
        if status != StatusCode::OK {
            return Err(Failure::Status(status.as_u16(), first_line(&out)));
        }
        Ok(out)
    }
}

/// The sending half of an HTTP/1.1 connection.
type Sender = hyper::client::conn::http1::SendRequest<Empty<Bytes>>;

/// HTTP/1.1 over `io`; the connection is driven by a task of the runtime,
/// which ends when the sender is dropped.
async fn handshake<T>(io: T) -> Result<Sender, Failure>
where
    T: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (sender, conn) = hyper::client::conn::http1::Builder::new()
        .max_buf_size(MAX_HEAD.max(8192))
        .handshake::<_, Empty<Bytes>>(io)
        .await
        .map_err(|e| Failure::Broken(e.to_string()))?;
    tokio::spawn(conn);
    Ok(sender)
}

/// One node's connection, kept from request to request (HTTP keep-alive):
/// a loop connects once, not once a sample. A request that fails or comes
/// late closes it; the next one connects again. An `ssh://` node's is
/// the socket of its loop's `ssh` master (`hosts::ssh::Master`), if any.
pub struct Conn {
    client: Client,
    host: Host,
    runtime: Option<tokio::runtime::Runtime>,
    sender: Option<Sender>,
    master: Option<std::path::PathBuf>,
    /// The last answer of [`Conn::get_once`]: its deadline, its body and
    /// when it came.
    last: Option<(Instant, Arc<Vec<u8>>, std::time::SystemTime)>,
}

impl Conn {
    /// The same, its `ssh` runs over the master at `socket`.
    pub fn over_master(mut self, socket: std::path::PathBuf) -> Conn {
        self.master = Some(socket);
        self
    }

    /// The node.
    pub fn host(&self) -> &Host {
        &self.host
    }

    /// The `ssh` master's socket, for an `ssh://` node in a loop.
    pub fn master(&self) -> Option<&std::path::Path> {
        self.master.as_deref()
    }

    /// GET the node's own path (a `/metrics` node's) by `deadline`, once
    /// for every read that shares that deadline (a sample's): the body of a
    /// `200` answer and when it came.
    pub fn get_once(
        &mut self,
        deadline: Instant,
    ) -> Result<(Arc<Vec<u8>>, std::time::SystemTime), Failure> {
        if let Some((d, body, when)) = &self.last {
            if *d == deadline {
                return Ok((Arc::clone(body), *when));
            }
        }
        self.last = None;
        let body = Arc::new(self.get("", deadline)?);
        let when = std::time::SystemTime::now();
        self.last = Some((deadline, Arc::clone(&body), when));
        Ok((body, when))
    }

    /// GET `path` (with its query) by `deadline`: the body of a `200` answer.
    pub fn get(&mut self, path: &str, deadline: Instant) -> Result<Vec<u8>, Failure> {
        if self.runtime.is_none() {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| Failure::Connect(format!("cannot start a runtime: {e}")))?;
            self.runtime = Some(rt);
        }
        let Some(runtime) = self.runtime.as_ref() else {
            return Err(Failure::Connect("no runtime".into()));
        };
        let (client, host, sender) = (&self.client, &self.host, &mut self.sender);
        let uri = format!("{}{path}", host.prefix);
        let left = deadline.saturating_duration_since(Instant::now());
        let answer = runtime.block_on(async {
            let exchange = async {
                // A kept connection the node has closed meanwhile (its idle
                // timeout) is replaced by a new one.
                if let Some(s) = sender.as_mut() {
                    if s.ready().await.is_err() {
                        *sender = None;
                    }
                }
                if sender.is_none() {
                    *sender = Some(client.connect(host).await?);
                }
                match sender.as_mut() {
                    Some(s) => client.request(s, host, &uri).await,
                    None => Err(Failure::Connect("no connection".into())),
                }
            };
            tokio::time::timeout(left, exchange)
                .await
                .unwrap_or(Err(Failure::Late))
        });
        if answer.is_err() {
            self.sender = None;
        }
        answer
    }
}

/// The first line of a refusal's body, cut to 120 characters, printable.
fn first_line(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let line: String = text
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .chars()
        .take(120)
        .collect();
    nvq_core::render::printable(&line).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_is_quoted_printable_and_short() {
        let body = format!("\u{1b}]0;PWNED\u{7}{}\nsecond", "x".repeat(500));
        let line = first_line(body.as_bytes());
        assert!(!line.chars().any(char::is_control), "{line:?}");
        assert!(line.chars().count() <= 120);
    }
}
