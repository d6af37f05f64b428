//! `/api/v1/query`: the rows of one query, for another nvq's `--hosts`.
//!
//! `GET /api/v1/query?mode=query-gpu&fields=index,memory.used` answers the
//! rows `nvq --query-gpu=index,memory.used` would print, in the wire form of
//! `model::wire` (JSON, every cell exact), so that the reading nvq prints
//! the same bytes as the node would.
//!
//! The queries are read by one thread of their own, one query at a time,
//! each GPU on a `schedule::deadline` lane under the request's deadline, as
//! a loop reads them: a hung GPU is listed in the answer's `late` GPUs (its
//! lane is not asked again until its call returns) and never holds up the
//! others. At most [`QUEUE`] queries wait for that thread; more are answered
//! 503 at once. So however many clients ask, the API adds one thread, and
//! at most one lane per GPU plus one per call in flight; a server that is
//! never asked starts none (the thread starts with the first query).

use crate::schedule::deadline::{lock, PerGpu};
use nvq_core::model::wire::Answer;
use nvq_core::model::Row;
use nvq_core::nvml::Session;
use nvq_core::source::{self, QueryMode, Request};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The API's path.
pub const PATH: &str = "/api/v1/query";

/// How many queries may wait for the API's thread.
pub const QUEUE: usize = 4;

/// The longest field list a query may name, in bytes.
pub const MAX_FIELDS: usize = 4096;

/// A checked query.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    pub mode: QueryMode,
    pub fields: Vec<usize>,
}

/// The query of a request's query string (`mode=query-gpu&fields=a,b`),
/// or why it is refused (a sentence for a 400 answer). Field names hold
/// no character that URLs escape, so the string is read as it is.
pub fn parse(query: &str) -> Result<Query, String> {
    let mut mode = None;
    let mut fields = None;
    for pair in query.split('&') {
        match pair.split_once('=') {
            Some(("mode", v)) => mode = Some(v),
            Some(("fields", v)) => fields = Some(v),
            _ => {}
        }
    }
    let mode = mode.ok_or("the query needs mode=query-gpu or mode=query-compute-apps")?;
    let mode = [QueryMode::GPU, QueryMode::COMPUTE_APPS]
        .into_iter()
        .find(|m| m.option() == mode)
        .ok_or("mode must be query-gpu or query-compute-apps")?;
    let fields = fields.ok_or("the query needs fields=NAME,NAME,...")?;
    if fields.len() > MAX_FIELDS {
        return Err(format!("the field list is longer than {MAX_FIELDS} bytes"));
    }
    let fields = mode.resolve(fields).map_err(|e| e.nvq_text(None))?;
    Ok(Query { mode, fields })
}

/// One query on its way to the API's thread, and where its answer goes.
struct Job {
    query: Query,
    deadline: Instant,
    reply: tokio::sync::oneshot::Sender<Vec<u8>>,
}

/// The API's thread, as the server holds it: started by the first query,
/// so that a server nobody asks adds no thread.
pub struct Api {
    session: Arc<Session>,
    devices: Vec<u32>,
    count: u32,
    tx: std::sync::OnceLock<Option<SyncSender<Job>>>,
}

/// Why a query got no answer.
#[derive(Debug, PartialEq)]
pub enum Refused {
    /// [`QUEUE`] queries are waiting already.
    Busy,
    /// The thread could not be started.
    Gone,
}

impl Api {
    /// The API for `devices` (NVML indices) of `session`; `count` is
    /// NVML's device count. No thread starts yet.
    pub fn new(session: Arc<Session>, devices: Vec<u32>, count: u32) -> Api {
        Api {
            session,
            devices,
            count,
            tx: std::sync::OnceLock::new(),
        }
    }

    /// Start the thread and its lanes.
    fn start(&self) -> std::io::Result<SyncSender<Job>> {
        let (tx, rx) = sync_channel(QUEUE);
        let current: Arc<Mutex<Query>> = Arc::new(Mutex::new(Query {
            mode: QueryMode::GPU,
            fields: Vec::new(),
        }));
        let count = self.count;
        let jobs = self
            .devices
            .iter()
            .map(|&gpu| {
                let (session, current) = (Arc::clone(&self.session), Arc::clone(&current));
                let mut targets = None;
                move || {
                    let q = lock(&current).clone();
                    let targets = targets.get_or_insert_with(|| source::targets(&session, &[gpu]));
                    Some(
                        q.mode
                            .collect(&session, targets, &Request::new(&q.fields, count, true)),
                    )
                }
            })
            .collect();
        let lanes = PerGpu::start(jobs)?;
        let devices = self.devices.clone();
        std::thread::Builder::new()
            .name("nvq-api".into())
            .spawn(move || answer(rx, lanes, current, devices))?;
        Ok(tx)
    }

    /// Hand a query to the thread; its answer (the JSON body) comes on the
    /// returned channel once every GPU answered or `deadline` passed.
    pub fn ask(
        &self,
        query: Query,
        deadline: Instant,
    ) -> Result<tokio::sync::oneshot::Receiver<Vec<u8>>, Refused> {
        let tx = self
            .tx
            .get_or_init(|| self.start().ok())
            .as_ref()
            .ok_or(Refused::Gone)?;
        let (reply, rx) = tokio::sync::oneshot::channel();
        match tx.try_send(Job {
            query,
            deadline,
            reply,
        }) {
            Ok(()) => Ok(rx),
            Err(TrySendError::Full(_)) => Err(Refused::Busy),
            Err(TrySendError::Disconnected(_)) => Err(Refused::Gone),
        }
    }
}

/// The API's thread: each query in turn, its GPUs under its deadline.
fn answer(
    rx: Receiver<Job>,
    mut lanes: PerGpu<Option<Vec<Row>>>,
    current: Arc<Mutex<Query>>,
    devices: Vec<u32>,
) {
    while let Ok(job) = rx.recv() {
        // A query whose client has given up is not read.
        if job.reply.is_closed() || job.deadline <= Instant::now() {
            continue;
        }
        *lock(&current) = job.query.clone();
        let per_gpu = lanes.sample(job.deadline, |_| None);
        let mut rows = Vec::new();
        let mut late = Vec::new();
        for (i, read) in per_gpu.into_iter().enumerate() {
            match read {
                Some(r) => rows.extend(r),
                None => late.extend(devices.get(i).copied()),
            }
        }
        let infos = job.query.mode.fields();
        let names: Vec<&str> = job
            .query
            .fields
            .iter()
            .filter_map(|&i| infos.get(i).map(|f| f.name))
            .collect();
        let option = job.query.mode.option();
        let answer = Answer::of(option, &names, &rows, late);
        // Serialising plain data cannot fail; an empty body would be refused by the reader.
        let body = serde_json::to_vec(&answer).unwrap_or_default();
        let _ = job.reply.send(body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_names_its_mode_and_fields() {
        let q = parse("mode=query-gpu&fields=index,memory.used").unwrap();
        assert_eq!(q.mode, QueryMode::GPU);
        assert_eq!(q.fields.len(), 2);
        let q = parse("fields=pid&mode=query-compute-apps&x=1").unwrap();
        assert_eq!(q.mode, QueryMode::COMPUTE_APPS);
    }

    #[test]
    fn bad_queries_say_why() {
        assert!(parse("fields=index").unwrap_err().contains("mode="));
        assert!(parse("mode=query-retired-pages&fields=x")
            .unwrap_err()
            .contains("query-gpu or"));
        assert!(parse("mode=query-gpu").unwrap_err().contains("fields="));
        assert!(parse("mode=query-gpu&fields=memory.usd")
            .unwrap_err()
            .contains("memory.usd"));
        let long = format!("mode=query-gpu&fields={}", "a".repeat(MAX_FIELDS + 1));
        assert!(parse(&long).unwrap_err().contains("longer than"));
    }
}
