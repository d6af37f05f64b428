//! `--hosts`: read other nodes' GPUs through their `nvq serve`.
//!
//! A node answers one query at `/api/v1/query` (`serve::api`) in the wire
//! form of `model::wire`, so the rows come back with every cell exact and
//! this nvq prints them as the node itself would, each with its `host`.
//! `list` reads the nodes named, `config` how to reach them (TLS,
//! credentials), `fetch` makes one bounded request, `ssh` one bounded run
//! of nvq on an `ssh://` node (the same answer on its stdout), and
//! `exporter` reads a node that runs dcgm-exporter or nvidia_gpu_exporter
//! through its `/metrics` (parsed by `exposition`) as the same rows. The
//! loop that asks every node under each sample's deadline is `app::hosts`.
//!
//! Why not `/metrics`: an exposition holds the profile's series only, in
//! base units that do not always round back to nvidia-smi's figures, and
//! no process's user or command line; the query API answers any field of
//! `--query-gpu` and `--query-compute-apps` exactly, in one small request.

pub mod config;
pub mod exporter;
pub mod exposition;
pub mod fetch;
pub mod lanes;
pub mod list;
pub mod ssh;
pub mod top;

pub use config::Options;
pub use fetch::{Client, Conn, Failure};
pub use list::Host;

use nvq_core::model::wire::Answer;
use nvq_core::model::Row;
use nvq_core::source::QueryMode;
use std::time::Instant;

/// The path and query that ask a node for `fields` (canonical names) of
/// the mode whose option is `option` (`query-gpu`).
pub fn query_path(option: &str, fields: &[&str]) -> String {
    format!("/api/v1/query?mode={option}&fields={}", fields.join(","))
}

/// A node's rows for `fields` of the mode whose option is `option`, and
/// its GPUs (NVML indices) that missed its own deadline, by `deadline`, on
/// its kept connection: the answer of its `nvq serve`, of nvq run over
/// `ssh`, or its exporter's `/metrics` read as the same rows (one scrape
/// for every read that shares a deadline).
pub fn read_on(
    conn: &mut Conn,
    option: &str,
    fields: &[&'static str],
    deadline: Instant,
) -> Result<(Vec<Row>, Vec<u32>), Failure> {
    if conn.host().scrape {
        let mode = QueryMode::by_option(option)
            .ok_or_else(|| Failure::Broken(format!("no --{option} from an exporter")))?;
        let (body, when) = conn.get_once(deadline)?;
        let rows = exporter::read(&body, when)?.rows(mode, fields)?;
        return Ok((rows, Vec::new()));
    }
    let body = match conn.host().ssh.clone() {
        Some(login) => {
            let host = conn.host();
            ssh::get(host, &login, conn.master(), option, fields, deadline)?
        }
        None => conn.get(&query_path(option, fields), deadline)?,
    };
    let answer: Answer = serde_json::from_slice(&body)
        .map_err(|e| Failure::Broken(format!("not an nvq query answer ({e})")))?;
    let late = answer.late.iter().copied().take(1024).collect();
    let rows = answer
        .rows(fields)
        .map_err(|why| Failure::Broken(format!("the node {why}")))?;
    Ok((rows, late))
}
