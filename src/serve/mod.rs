//! `nvq serve`'s HTTP server: hyper's HTTP/1.1 connection on a tokio
//! runtime of one thread (the GPUs are read on one thread each, see
//! [`collect`]; the startup runs on a thread of its own).
//!
//! Requests are bounded: the request head must fit in [`MAX_HEAD`] bytes
//! and arrive within the read timeout (hyper answers 431 or closes the
//! connection), an answer must be read within the write timeout, a
//! connection is answered one request at a time with capped kernel buffers,
//! at most `max_connections` are open at once (a new one takes the place of
//! the longest-stalled one, see `conn`, else it is closed), and only GET
//! and HEAD are served (405 otherwise). A request body is never read.
//! SIGTERM or SIGINT stops accepting, lets the scrapes in progress answer
//! (within [`collect::STOP_GRACE`]), waits for open connections at most
//! [`DRAIN`] and returns.

pub mod api;
mod auth;
pub mod collect;
mod conn;
pub mod web_config;

use collect::{Collector, Form};
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{
    HeaderValue, ACCEPT_ENCODING, ALLOW, AUTHORIZATION, CONTENT_ENCODING, CONTENT_TYPE, VARY,
    WWW_AUTHENTICATE,
};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use nvq_core::error::NvqError;
use nvq_core::render::exporter::{self, Health, Profile};
use std::convert::Infallible;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// The largest request head accepted (request line and headers), in bytes.
pub const MAX_HEAD: usize = 16 * 1024;
/// How long a stopping server waits for its open connections. Scrapes in
/// progress answer within [`collect::STOP_GRACE`] of the stop, so nvq exits
/// within this bound of SIGTERM whatever NVML is doing.
pub const DRAIN: Duration = Duration::from_secs(2);
/// The shortest scrape timeout a scraper can ask for: the loops' shortest
/// deadline ([`crate::schedule::deadline::MIN_LIMIT`]).
pub const MIN_SCRAPE_TIMEOUT: Duration = crate::schedule::deadline::MIN_LIMIT;
/// The kernel's send and receive buffers of each connection (the kernel
/// doubles them for its bookkeeping): an answer larger than the send buffer
/// waits for its client to read, under the write timeout.
pub const SEND_BUFFER: usize = 128 * 1024;
pub const RECV_BUFFER: usize = 32 * 1024;
/// A scrape's time limit when the scraper does not send one
/// (`X-Prometheus-Scrape-Timeout-Seconds`), and the most it may ask for.
pub const DEFAULT_SCRAPE_TIMEOUT: Duration = Duration::from_secs(10);
pub const MAX_SCRAPE_TIMEOUT: Duration = Duration::from_secs(120);

/// What the server needs besides its listener and collector.
pub struct Config {
    pub telemetry_path: String,
    pub profile: Profile,
    /// How long a client may take to send a request head (from its first
    /// byte; on a new connection, from the connection's start).
    pub read_timeout: Duration,
    /// How long a kept-alive connection may wait for its next request.
    pub idle_timeout: Duration,
    /// How long an answer may wait for its client to read it.
    pub write_timeout: Duration,
    pub max_connections: usize,
    /// `--web.config.file`'s TLS, if any.
    pub tls: Option<Arc<tokio_rustls::rustls::ServerConfig>>,
    /// Basic-auth users and their bcrypt hashes; empty: no authentication.
    pub users: Vec<(String, String)>,
}

/// Write one log line on stderr (one event per line).
pub fn log(msg: &str) {
    let line = format!("nvq serve: {}\n", msg.replace('\n', " "));
    let _ = std::io::stderr().write_all(line.as_bytes());
}

struct App {
    config: Config,
    /// Set once the startup (NVML, `-i`, the workers) is done.
    ready: OnceLock<Collector>,
    /// The query API's thread, set with `ready`.
    api: OnceLock<api::Api>,
    progress: Arc<Progress>,
    auth: auth::Checker,
}

/// What the startup is doing: the step it is in and since when, for
/// `/healthz` while it has not finished.
pub struct Progress(StdMutex<(&'static str, Instant)>);

impl Progress {
    fn new() -> Self {
        Progress(StdMutex::new(("starting", Instant::now())))
    }

    /// The startup begins `what` (an NVML call, or a step of calls).
    pub fn step(&self, what: &'static str) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = (what, Instant::now());
    }

    fn now(&self) -> (&'static str, Duration) {
        let (what, since) = *self.0.lock().unwrap_or_else(PoisonError::into_inner);
        (what, since.elapsed())
    }
}

/// The startup, run on a thread of its own: opens NVML, resolves `-i`,
/// starts the workers, and returns the collector and the words that
/// describe what is served ("profile nvq, 8 GPU(s)").
pub type Startup = Box<dyn FnOnce(&Progress) -> Result<Ready, NvqError> + Send>;

/// What the startup gives the server: the scrapes' collector, the query
/// API's thread, and a few words on what is served.
pub struct Ready {
    pub collector: Collector,
    pub api: api::Api,
    pub what: String,
}

/// How long the server waits for the startup before it listens anyway
/// (then `/healthz` says which call is late, and `/metrics` answers 503).
pub const STARTUP_WAIT: Duration = Duration::from_secs(2);

/// Run `startup`, then serve on `listener` until SIGTERM or SIGINT, which
/// are answered from the start (exit 0, even while the startup hangs in
/// NVML).
pub fn run(
    listener: std::net::TcpListener,
    local: SocketAddr,
    config: Config,
    startup: Startup,
) -> Result<(), NvqError> {
    use tokio::signal::unix::{signal, SignalKind};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| NvqError::Serve(format!("cannot start the runtime: {e}")))?;
    let io = |what: &str, e: std::io::Error| NvqError::Serve(format!("{what}: {e}"));
    let signals = {
        let _in = runtime.enter();
        let term = signal(SignalKind::terminate()).map_err(|e| io("cannot catch SIGTERM", e))?;
        let int = signal(SignalKind::interrupt()).map_err(|e| io("cannot catch SIGINT", e))?;
        (term, int)
    };
    let progress = Arc::new(Progress::new());
    let (tx, rx) = tokio::sync::oneshot::channel();
    let p = Arc::clone(&progress);
    std::thread::Builder::new()
        .name("nvq-startup".into())
        .spawn(move || {
            let _ = tx.send(startup(&p));
        })
        .map_err(|e| io("cannot start the startup thread", e))?;
    let auth = auth::Checker::new(config.users.clone());
    let app = Arc::new(App {
        config,
        ready: OnceLock::new(),
        api: OnceLock::new(),
        progress,
        auth,
    });
    let done = runtime.block_on(serve(listener, local, app, signals, rx));
    // Threads still in a call (NVML, a bcrypt check) are not waited for.
    runtime.shutdown_background();
    done
}

type StartupResult = tokio::sync::oneshot::Receiver<Result<Ready, NvqError>>;
type Signals = (tokio::signal::unix::Signal, tokio::signal::unix::Signal);

/// Wait for the startup, at most [`STARTUP_WAIT`] (a signal ends the wait:
/// `Err(None)`), then say that nvq listens.
async fn started(
    app: &App,
    local: SocketAddr,
    signals: &mut Signals,
    rx: &mut StartupResult,
) -> Result<bool, Option<NvqError>> {
    let scheme = if app.config.tls.is_some() {
        "https"
    } else {
        "http"
    };
    let path = &app.config.telemetry_path;
    tokio::select! {
        r = tokio::time::timeout(STARTUP_WAIT, &mut *rx) => match r {
            Ok(Ok(Ok(Ready { collector, api, what }))) => {
                let _ = app.ready.set(collector);
                let _ = app.api.set(api);
                log(&format!("listening on {scheme}://{local}{path} ({what})"));
                Ok(true)
            }
            Ok(Ok(Err(e))) => Err(Some(e)),
            Ok(Err(_)) => Err(Some(NvqError::Serve("the startup thread ended".into()))),
            Err(_) => {
                let (step, took) = app.progress.now();
                log(&format!(
                    "listening on {scheme}://{local}{path} (still starting: {step} has taken {:.1} s; /metrics \
                     answers 503 until it is done)",
                    took.as_secs_f64()
                ));
                Ok(false)
            }
        },
        _ = signals.0.recv() => { log("SIGTERM during startup: stopped"); Err(None) }
        _ = signals.1.recv() => { log("SIGINT during startup: stopped"); Err(None) }
    }
}

/// Counts events and says which to log: the 1st, 2nd, 4th, 8th, ...
#[derive(Default)]
struct LogRate(AtomicU64);

impl LogRate {
    /// `Some(n)` when the n-th event is one to log.
    fn hit(&self) -> Option<u64> {
        let n = self.0.fetch_add(1, Ordering::Relaxed) + 1;
        n.is_power_of_two().then_some(n)
    }
}

async fn serve(
    listener: std::net::TcpListener,
    local: SocketAddr,
    app: Arc<App>,
    mut signals: Signals,
    mut startup: StartupResult,
) -> Result<(), NvqError> {
    let mut ready = match started(&app, local, &mut signals, &mut startup).await {
        Ok(ready) => ready,
        Err(None) => return Ok(()),
        Err(Some(e)) => return Err(e),
    };
    let io = |what: &str, e: std::io::Error| NvqError::Serve(format!("{what}: {e}"));
    listener
        .set_nonblocking(true)
        .map_err(|e| io("cannot listen", e))?;
    // Accepted sockets inherit these: what one connection can pin in the
    // kernel is bounded whatever its client does.
    let sock = socket2::SockRef::from(&listener);
    let _ = sock.set_send_buffer_size(SEND_BUFFER);
    let _ = sock.set_recv_buffer_size(RECV_BUFFER);
    let listener =
        tokio::net::TcpListener::from_std(listener).map_err(|e| io("cannot listen", e))?;
    let max = app.config.max_connections;
    let conns = Arc::new(conn::Table::new(max));
    let (stop, stopped) = watch::channel(false);
    let refused = Arc::new(LogRate::default());
    let tls_failed = Arc::new(LogRate::default());
    let why = loop {
        let accepted = tokio::select! {
            _ = signals.0.recv() => break "SIGTERM",
            _ = signals.1.recv() => break "SIGINT",
            r = &mut startup, if !ready => {
                ready = true;
                match r {
                    Ok(Ok(Ready { collector, api, what })) => {
                        let (step, took) = app.progress.now();
                        log(&format!("ready ({what}; the last step, {step}, took {:.1} s)", took.as_secs_f64()));
                        let _ = app.ready.set(collector);
                        let _ = app.api.set(api);
                        continue;
                    }
                    Ok(Err(e)) => return Err(e),
                    Err(_) => return Err(NvqError::Serve("the startup thread ended".into())),
                }
            }
            a = listener.accept() => a,
        };
        let (stream, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Out of descriptors and the like: say so, and let a
                // moment pass before accepting again.
                log(&format!("accept failed: {e}"));
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let entry = match conns.admit() {
            conn::Admitted::Yes(entry) => entry,
            conn::Admitted::Evicted(entry, victim) => {
                if let Some(n) = refused.hit() {
                    log(&format!(
                        "connection limit ({max}) reached: closed the connection from {victim} that had stalled \
                         longest, for one from {peer} ({n} so far)"
                    ));
                }
                entry
            }
            conn::Admitted::No => {
                // One line per power of two, not one per refused connection.
                if let Some(n) = refused.hit() {
                    log(&format!(
                        "connection limit ({max}) reached: closed a connection from {peer} ({n} so far)"
                    ));
                }
                drop(stream);
                continue;
            }
        };
        entry.set_peer(peer);
        let app = Arc::clone(&app);
        let stopped = stopped.clone();
        let conns = Arc::clone(&conns);
        let tls_failed = Arc::clone(&tls_failed);
        let tls = app.config.tls.clone().map(tokio_rustls::TlsAcceptor::from);
        tokio::spawn(async move {
            let _ = stream.set_nodelay(true);
            let timeouts = conn::Timeouts {
                read: app.config.read_timeout,
                idle: app.config.idle_timeout,
                write: app.config.write_timeout,
            };
            let stream = conn::Guarded::new(stream, Arc::clone(&entry), timeouts);
            let evicted = entry.evicted();
            tokio::pin!(evicted);
            tokio::select! {
                _ = &mut evicted => {}
                _ = async {
                    match tls {
                        None => connection(stream, &entry, app, stopped).await,
                        Some(acceptor) => {
                            // The handshake is bounded like a request head.
                            let limit = app.config.read_timeout;
                            let failed = |what: String| {
                                if let Some(n) = tls_failed.hit() {
                                    log(&format!("TLS handshake with {peer} {what} ({n} so far)"));
                                }
                            };
                            match tokio::time::timeout(limit, acceptor.accept(stream)).await {
                                Ok(Ok(tls)) => connection(tls, &entry, app, stopped).await,
                                Ok(Err(e)) => failed(format!("failed: {e}")),
                                Err(_) => failed("timed out".to_string()),
                            }
                        }
                    }
                } => {}
            }
            conns.remove(&entry);
        });
    };
    drop(listener);
    log(&format!(
        "{why}: no longer accepting; finishing open requests (at most {} s)",
        DRAIN.as_secs()
    ));
    if let Some(c) = app.ready.get() {
        c.stop();
    }
    let _ = stop.send(true);
    if tokio::time::timeout(DRAIN, conns.empty()).await.is_err() {
        log("some connections were still open after the drain period; closing them");
    }
    log("stopped");
    Ok(())
}

/// Serve one connection until it closes, its client is too slow, or the
/// server stops (then the request in progress is finished first).
async fn connection<S>(
    stream: S,
    entry: &Arc<conn::Entry>,
    app: Arc<App>,
    mut stopped: watch::Receiver<bool>,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let busy = Arc::clone(entry);
    let service = service_fn(move |req| {
        let (app, busy) = (Arc::clone(&app), Arc::clone(&busy));
        async move {
            // While a request is being answered, the connection is not
            // stalled. (Taken when hyper first polls the answer: a request
            // hyper has read but not yet started answering, because the
            // answer before it waits for its client, is not.)
            let guard = busy.busy();
            let r = app.handle(req).await;
            drop(guard);
            Ok::<_, Infallible>(r)
        }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        // The read and idle timeouts are `conn::Guarded`'s: hyper's own
        // header timer would also close a kept-alive connection idle for
        // the read timeout, between a scraper's scrapes.
        .header_read_timeout(None)
        .max_buf_size(MAX_HEAD);
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    let stop = tokio::select! {
        _ = conn.as_mut() => false,
        r = stopped.wait_for(|s| *s) => r.is_ok(),
    };
    if stop {
        conn.as_mut().graceful_shutdown();
        let _ = tokio::time::timeout(DRAIN, conn).await;
    }
}

impl App {
    async fn handle(&self, req: Request<Incoming>) -> Response<Full<Bytes>> {
        if req.method() != Method::GET && req.method() != Method::HEAD {
            let mut r = text(
                StatusCode::METHOD_NOT_ALLOWED,
                "Only GET and HEAD are served.\n",
            );
            r.headers_mut()
                .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
            return r;
        }
        let due = Instant::now() + scrape_timeout(&req);
        match self
            .auth
            .allows(req.headers().get(AUTHORIZATION), due)
            .await
        {
            auth::Verdict::Allowed => {}
            auth::Verdict::Refused => {
                let mut r = text(StatusCode::UNAUTHORIZED, "Unauthorized.\n");
                r.headers_mut().insert(
                    WWW_AUTHENTICATE,
                    HeaderValue::from_static("Basic realm=\"nvq\", charset=\"UTF-8\""),
                );
                return r;
            }
            // Too many password checks to finish one within the timeout.
            auth::Verdict::Busy => return busy("Too many password checks; try again.\n"),
        }
        let path = req.uri().path();
        if path == self.config.telemetry_path {
            self.metrics(&req).await
        } else if path == api::PATH {
            self.query(&req).await
        } else if path == "/" {
            let page = landing(&self.config.telemetry_path);
            let mut r = Response::new(Full::new(Bytes::from(page)));
            r.headers_mut().insert(
                CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            );
            r
        } else if path == "/healthz" {
            if self.ready.get().is_some() {
                text(StatusCode::OK, "ok\n")
            } else {
                self.starting()
            }
        } else {
            text(StatusCode::NOT_FOUND, "Not found.\n")
        }
    }

    /// `/api/v1/query`: one query's rows for another nvq (see [`api`]),
    /// under the request's time limit as a scrape is.
    async fn query(&self, req: &Request<Incoming>) -> Response<Full<Bytes>> {
        let timeout = scrape_timeout(req);
        let deadline = Instant::now() + timeout * 9 / 10;
        let Some(api) = self.api.get() else {
            return self.starting();
        };
        let query = match api::parse(req.uri().query().unwrap_or("")) {
            Ok(q) => q,
            Err(why) => {
                let body = format!("{}\n", nvq_core::render::printable(why.trim_end()));
                let mut r = Response::new(Full::new(Bytes::from(body)));
                *r.status_mut() = StatusCode::BAD_REQUEST;
                r.headers_mut().insert(
                    CONTENT_TYPE,
                    HeaderValue::from_static("text/plain; charset=utf-8"),
                );
                return r;
            }
        };
        let rx = match api.ask(query, deadline) {
            Ok(rx) => rx,
            Err(api::Refused::Busy) => return busy("Too many queries at once; try again.\n"),
            Err(api::Refused::Gone) => {
                return text(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "The query thread could not start.\n",
                )
            }
        };
        // The thread answers by the deadline, unless it is still busy with
        // the queries queued before this one: then 503, not a hang.
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(body)) => {
                let mut r = Response::new(Full::new(Bytes::from(body)));
                r.headers_mut()
                    .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
                r
            }
            _ => text(
                StatusCode::SERVICE_UNAVAILABLE,
                "The query was not answered in time; try again.\n",
            ),
        }
    }

    /// 503 while the startup has not finished, saying which step is late.
    fn starting(&self) -> Response<Full<Bytes>> {
        let (step, took) = self.progress.now();
        let body = format!(
            "starting: {step} has taken {:.1} s and has not answered yet\n",
            took.as_secs_f64()
        );
        let mut r = Response::new(Full::new(Bytes::from(body)));
        *r.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
        r.headers_mut().insert(
            CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        r
    }

    async fn metrics(&self, req: &Request<Incoming>) -> Response<Full<Bytes>> {
        let arrived = Instant::now();
        let timeout = scrape_timeout(req);
        // Nine tenths of the time for the GPUs, the rest for the answer.
        let deadline = arrived + timeout * 9 / 10;
        let Some(collector) = self.ready.get() else {
            return self.starting();
        };
        let sample = collector.sample(arrived, deadline).await;
        if sample.late > 0 {
            collector.note_timeout();
        }
        // This scrape's own late and lost GPUs, the counters of all.
        let health = Health {
            late_gpus: sample.late,
            lost_gpus: sample.lost,
            ..collector.health()
        };
        let accept = req
            .headers()
            .get(hyper::header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let om = exporter::wants_openmetrics(accept);
        let kind = if om {
            exporter::OPENMETRICS_TYPE
        } else {
            exporter::TEXT_TYPE
        };
        let gzip = req
            .headers()
            .get_all(ACCEPT_ENCODING)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .any(accepts_gzip);
        let form = Form {
            openmetrics: om,
            gzip,
        };
        // Scrapes served from one collection with the same health get the
        // same bytes: built (and compressed) once, then shared.
        let cached = sample.answer(&health, form);
        let (body, gzip) = match cached {
            Some(body) => (body, gzip),
            None => {
                let mut body = Vec::with_capacity(sample.body.len() + 2048);
                body.extend_from_slice(&sample.body);
                exporter::render_health(
                    self.config.profile,
                    &health,
                    true,
                    &sample.states,
                    &mut body,
                );
                let body = if om {
                    exporter::openmetrics(&body)
                } else {
                    body
                };
                // Compression cannot fail on a Vec; if it did, send plain text.
                let (body, gzip) = match gzip.then(|| compress(&body)).flatten() {
                    Some(z) => (z, true),
                    None => (body, false),
                };
                let body = Bytes::from(body);
                let form = Form {
                    openmetrics: om,
                    gzip,
                };
                sample.remember(health, form, body.clone());
                (body, gzip)
            }
        };
        let mut r = Response::new(Full::new(body));
        let headers = r.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(kind));
        headers.insert(VARY, HeaderValue::from_static("Accept-Encoding"));
        if gzip {
            headers.insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        }
        r
    }
}

/// Whether an `Accept-Encoding` value lets the answer be gzip'd: `gzip`,
/// `x-gzip` or `*`, with no `q=0`.
fn accepts_gzip(value: &str) -> bool {
    value.split(',').any(|coding| {
        let mut parts = coding.split(';');
        let name = parts.next().unwrap_or("").trim();
        let named = ["gzip", "x-gzip", "*"]
            .iter()
            .any(|n| name.eq_ignore_ascii_case(n));
        let refused = parts.any(|p| {
            let p = p.trim();
            p.len() > 2
                && p[..2].eq_ignore_ascii_case("q=")
                && p[2..].trim().parse::<f64>().is_ok_and(|q| q <= 0.0)
        });
        named && !refused
    })
}

/// The answer gzip'd, at the fastest level: it is built once per
/// collection, and an exposition is repetitive enough to shrink tenfold.
fn compress(body: &[u8]) -> Option<Vec<u8>> {
    let mut z = flate2::write::GzEncoder::new(
        Vec::with_capacity(body.len() / 8),
        flate2::Compression::fast(),
    );
    z.write_all(body).ok()?;
    z.finish().ok()
}

/// The scrape's time limit: Prometheus's `X-Prometheus-Scrape-Timeout-Seconds`,
/// else [`DEFAULT_SCRAPE_TIMEOUT`]; from [`MIN_SCRAPE_TIMEOUT`] to
/// [`MAX_SCRAPE_TIMEOUT`].
fn scrape_timeout<B>(req: &Request<B>) -> Duration {
    req.headers()
        .get("x-prometheus-scrape-timeout-seconds")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(DEFAULT_SCRAPE_TIMEOUT, |s| {
            Duration::from_secs_f64(s.min(MAX_SCRAPE_TIMEOUT.as_secs_f64())).max(MIN_SCRAPE_TIMEOUT)
        })
}

/// 503 with `Retry-After: 1`: the server is too busy for this request now.
fn busy(body: &'static str) -> Response<Full<Bytes>> {
    let mut r = text(StatusCode::SERVICE_UNAVAILABLE, body);
    r.headers_mut()
        .insert(hyper::header::RETRY_AFTER, HeaderValue::from_static("1"));
    r
}

fn text(status: StatusCode, body: &'static str) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *r.status_mut() = status;
    r.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

/// The page at `/`: what this is, and a link to the metrics.
fn landing(path: &str) -> String {
    let href: String = path
        .chars()
        .map(|c| match c {
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '&' => "&amp;".to_string(),
            '"' => "&quot;".to_string(),
            c => c.to_string(),
        })
        .collect();
    format!(
        "<!DOCTYPE html>\n<html><head><title>nvq exporter</title></head><body>\n\
         <h1>nvq exporter</h1>\n<p>GPU metrics for Prometheus, read through NVML.</p>\n\
         <p><a href=\"{href}\">Metrics</a> &middot; <a href=\"/healthz\">Health</a></p>\n\
         </body></html>\n"
    )
}

/// Resolve `--web.listen-address`: `HOST:PORT`, `[V6]:PORT`, or `:PORT`
/// (every interface, IPv6 and IPv4 where the host allows it).
pub fn bind(address: &str) -> Result<(std::net::TcpListener, SocketAddr), NvqError> {
    let bad = |why: String| NvqError::Usage(format!("--web.listen-address \"{address}\": {why}"));
    let (host, port) = address
        .rsplit_once(':')
        .ok_or_else(|| bad("expected HOST:PORT or :PORT.".into()))?;
    let port: u16 = port
        .parse()
        .map_err(|_| bad(format!("\"{port}\" is not a port number.")))?;
    let candidates: Vec<SocketAddr> = if host.is_empty() {
        vec![
            SocketAddr::from((std::net::Ipv6Addr::UNSPECIFIED, port)),
            SocketAddr::from((std::net::Ipv4Addr::UNSPECIFIED, port)),
        ]
    } else {
        use std::net::ToSocketAddrs;
        (host.trim_start_matches('[').trim_end_matches(']'), port)
            .to_socket_addrs()
            .map_err(|e| bad(format!("cannot resolve the host: {e}.")))?
            .collect()
    };
    let mut last = None;
    for addr in candidates {
        match std::net::TcpListener::bind(addr) {
            Ok(l) => {
                let local = l.local_addr().unwrap_or(addr);
                return Ok((l, local));
            }
            Err(e) => last = Some(e),
        }
    }
    Err(NvqError::Serve(match last {
        Some(e) => format!("cannot listen on {address}: {e}"),
        None => format!("cannot listen on {address}: the host has no address"),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrape_timeouts() {
        let req = |v: Option<&str>| {
            let mut b = Request::builder();
            if let Some(v) = v {
                b = b.header("X-Prometheus-Scrape-Timeout-Seconds", v);
            }
            b.body(()).unwrap()
        };
        assert_eq!(scrape_timeout(&req(None)), DEFAULT_SCRAPE_TIMEOUT);
        assert_eq!(
            scrape_timeout(&req(Some("2.5"))),
            Duration::from_millis(2500)
        );
        assert_eq!(scrape_timeout(&req(Some("-1"))), DEFAULT_SCRAPE_TIMEOUT);
        assert_eq!(scrape_timeout(&req(Some("NaN"))), DEFAULT_SCRAPE_TIMEOUT);
        assert_eq!(scrape_timeout(&req(Some("1e9"))), MAX_SCRAPE_TIMEOUT);
        assert_eq!(scrape_timeout(&req(Some("1e-9"))), MIN_SCRAPE_TIMEOUT);
        assert_eq!(scrape_timeout(&req(Some("0.01"))), MIN_SCRAPE_TIMEOUT);
    }

    #[test]
    fn accept_encodings() {
        for yes in [
            "gzip",
            "GZIP",
            "gzip, deflate",
            "br;q=1.0, gzip;q=0.8",
            "x-gzip",
            "*",
            "gzip;q=0.001",
        ] {
            assert!(accepts_gzip(yes), "{yes}");
        }
        for no in [
            "",
            "identity",
            "br",
            "gzip;q=0",
            "gzip; q=0.0",
            "*;q=0",
            "gzipped",
            "deflate",
        ] {
            assert!(!accepts_gzip(no), "{no}");
        }
    }

    #[test]
    fn listen_addresses() {
        assert!(bind("nonsense").is_err());
        assert!(bind("127.0.0.1:notaport").is_err());
        let (_l, a) = bind("127.0.0.1:0").unwrap();
        assert!(a.ip().is_loopback() && a.port() != 0);
        assert!(landing("/m\"<x>").contains("href=\"/m&quot;&lt;x&gt;\""));
    }
}
