//! Every node of `--hosts` read under one deadline per sample: one job per
//! node on the lanes that read local GPUs (`schedule::deadline::PerGpu`),
//! so that a node that is slow or never answers costs one thread while it
//! hangs and never holds up the others or the loop. The queries, `nvq
//! stat` and `nvq top` all start their nodes' lanes here.

use super::fetch::{Client, Conn};
use super::list::Host;
use super::ssh::Master;
use crate::schedule::deadline::{Notify, PerGpu};
use nvq_core::error::NvqError;

/// The `ssh` master connections of a loop's `ssh://` nodes, which its
/// samples share: each is killed and reaped when this is dropped.
pub struct Masters {
    _held: Vec<Option<Master>>,
}

/// One lane per node of `hosts`, each running the job that `job` makes of
/// the node's connection (kept from sample to sample); `notify`: called by
/// a lane when it has run out of a sample's work (`nvq top`). `looping`:
/// the samples of each `ssh://` node share one `ssh` connection, a master
/// started here, which lives as long as the [`Masters`] returned.
pub fn start<T, J>(
    hosts: &[Host],
    client: &Client,
    looping: bool,
    notify: Option<Notify>,
    job: impl Fn(Conn) -> J,
) -> Result<(PerGpu<T>, Masters), NvqError>
where
    T: Send + 'static,
    J: FnMut() -> T + Send + 'static,
{
    let masters: Vec<Option<Master>> = hosts
        .iter()
        .map(|h| match &h.ssh {
            Some(login) if looping => Master::start(h, login),
            _ => None,
        })
        .collect();
    let jobs = hosts
        .iter()
        .zip(&masters)
        .map(|(host, master)| {
            let mut conn = client.conn(host.clone());
            if let Some(m) = master {
                conn = conn.over_master(m.socket().to_path_buf());
            }
            job(conn)
        })
        .collect();
    let lanes = PerGpu::start_notifying(jobs, notify).map_err(|e| {
        NvqError::Start(format!("cannot start the threads that read the nodes: {e}"))
    })?;
    Ok((lanes, Masters { _held: masters }))
}
