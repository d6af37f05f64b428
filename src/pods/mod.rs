//! Pod attribution for `nvq serve --collect.pods`: which Kubernetes
//! containers hold which GPUs, from the kubelet's pod-resources API
//! (`v1.PodResourcesLister/List`, gRPC over its unix socket), as
//! dcgm-exporter reads it.
//!
//! A thread of its own asks the kubelet every `--collect.pods.interval`,
//! each call bounded by [`CALL_TIMEOUT`], and keeps the last good answer:
//! a collection only reads that answer, so a socket that hangs, answers
//! garbage or disappears never delays a scrape, and never takes labels
//! away (the health series say the answer is old). Device ids are what the
//! NVIDIA device plugin hands out: GPU UUIDs, MIG UUIDs (resolved to their
//! GPU's UUID through NVML, once each), or NVML indices; a time-slicing
//! replica's `::N` suffix is dropped.

pub mod grpc;
pub mod proto;

use nvq_core::model::pods::{PodHealth, PodMap, PodRef};
use nvq_core::nvml::{raw, Session};
use prost::Message;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The kubelet's pod-resources socket.
pub const DEFAULT_SOCKET: &str = "/var/lib/kubelet/pod-resources/kubelet.sock";

/// The method nvq calls.
pub const LIST: &str = "/v1.PodResourcesLister/List";

/// How long one query of the kubelet may take.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(2);

/// The resources whose devices are GPUs: `nvidia.com/gpu`, the MIG
/// strategies' `nvidia.com/mig-1g.10gb`, time-slicing's renamed
/// `nvidia.com/gpu.shared`.
const RESOURCE_PREFIX: &str = "nvidia.com/";

/// Where and how often to ask.
#[derive(Debug, Clone)]
pub struct Config {
    pub socket: PathBuf,
    pub interval: Duration,
}

/// The last answer and the health figures, shared by the thread that asks
/// and the collections that read.
#[derive(Debug, Default)]
pub struct PodState {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    map: Arc<PodMap>,
    health: PodHealth,
    /// When the last query ended.
    last_end: Option<Instant>,
}

impl PodState {
    /// The last good answer and the health as of now. A query that has
    /// not ended for two intervals and a call timeout (the thread is stuck)
    /// reads as a failure.
    pub fn snapshot(&self, interval: Duration) -> (Arc<PodMap>, PodHealth) {
        let g = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let mut health = g.health;
        let fresh = g
            .last_end
            .is_some_and(|t| t.elapsed() < interval * 2 + CALL_TIMEOUT);
        health.ok &= fresh;
        (Arc::clone(&g.map), health)
    }

    fn succeeded(&self, map: PodMap) {
        let mut g = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        g.health.ok = true;
        g.health.devices = map.held();
        g.health.last_success_unix = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .ok()
            .map(|d| d.as_secs_f64());
        g.map = Arc::new(map);
        g.last_end = Some(Instant::now());
    }

    /// A failed query keeps the last good answer.
    fn failed(&self) {
        let mut g = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        g.health.ok = false;
        g.health.failures += 1;
        g.last_end = Some(Instant::now());
    }
}

/// Ask the kubelet every `cfg.interval` until the process ends, on a
/// thread of its own; `log` gets a line when queries start failing (with
/// why) and when they work again.
pub fn watch(
    session: Arc<Session>,
    cfg: Config,
    state: Arc<PodState>,
    log: fn(&str),
) -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    std::thread::Builder::new().name("nvq-pods".into()).spawn(move || {
        let mut migs = MigParents::default();
        let mut last_error: Option<String> = None;
        loop {
            match rt.block_on(list(&cfg)) {
                Ok(resp) => {
                    state.succeeded(attribute(&resp, |id| migs.parent(&session, id)));
                    if last_error.take().is_some() {
                        log("pod attribution: the kubelet answers again");
                    }
                }
                Err(e) => {
                    state.failed();
                    let e = e.to_string();
                    if last_error.as_ref() != Some(&e) {
                        log(&format!(
                            "pod attribution: cannot list pods from {}: {e} (labels stay as last known)",
                            cfg.socket.display()
                        ));
                        last_error = Some(e);
                    }
                }
            }
            std::thread::sleep(cfg.interval);
        }
    })?;
    Ok(())
}

/// Why a query gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum ListError {
    #[error(transparent)]
    Call(#[from] grpc::CallError),
    #[error("an answer that is not a ListPodResourcesResponse: {0}")]
    Decode(#[from] prost::DecodeError),
}

/// One `List` call.
pub async fn list(cfg: &Config) -> Result<proto::ListPodResourcesResponse, ListError> {
    let req = proto::ListPodResourcesRequest {}.encode_to_vec();
    let answer = grpc::unary(&cfg.socket, LIST, req, CALL_TIMEOUT).await?;
    Ok(proto::ListPodResourcesResponse::decode(answer.as_slice())?)
}

/// The GPUs each container holds; `mig_parent` names a MIG device's GPU
/// (its UUID), or `None` when NVML cannot tell.
pub fn attribute(
    resp: &proto::ListPodResourcesResponse,
    mut mig_parent: impl FnMut(&str) -> Option<String>,
) -> PodMap {
    let mut map = PodMap::default();
    for pod in &resp.pod_resources {
        for c in &pod.containers {
            let holder = PodRef {
                namespace: pod.namespace.clone(),
                pod: pod.name.clone(),
                container: c.name.clone(),
            };
            let ids = c
                .devices
                .iter()
                .filter(|d| d.resource_name.starts_with(RESOURCE_PREFIX))
                .flat_map(|d| &d.device_ids);
            for id in ids {
                // Time-slicing replicas are `<id>::<n>`.
                let id = id.split("::").next().unwrap_or(id);
                let gpu = if id.starts_with("MIG-") {
                    mig_parent(id)
                } else {
                    Some(id.to_string())
                };
                if let Some(gpu) = gpu {
                    map.insert(&gpu, holder.clone());
                }
            }
        }
    }
    map
}

/// MIG UUID → its GPU's UUID, asked of NVML once per MIG device.
#[derive(Default)]
struct MigParents {
    known: HashMap<String, String>,
}

impl MigParents {
    fn parent(&mut self, session: &Session, mig: &str) -> Option<String> {
        if let Some(p) = self.known.get(mig) {
            return Some(p.clone());
        }
        let parent = raw::mig_parent_uuid(session, mig).ok()?;
        self.known.insert(mig.to_string(), parent.clone());
        Some(parent)
    }
}

#[cfg(test)]
mod tests {
    use super::proto::*;
    use super::*;

    fn container(name: &str, devices: &[(&str, &[&str])]) -> ContainerResources {
        ContainerResources {
            name: name.into(),
            devices: devices
                .iter()
                .map(|(r, ids)| ContainerDevices {
                    resource_name: (*r).into(),
                    device_ids: ids.iter().map(|s| (*s).into()).collect(),
                })
                .collect(),
        }
    }

    #[test]
    fn gpus_mig_devices_replicas_and_other_resources() {
        let resp = ListPodResourcesResponse {
            pod_resources: vec![
                PodResources {
                    name: "train-0".into(),
                    namespace: "ml".into(),
                    containers: vec![
                        container("trainer", &[("nvidia.com/gpu", &["GPU-a", "GPU-b"])]),
                        container("sidecar", &[("example.com/fpga", &["GPU-c"])]),
                    ],
                },
                PodResources {
                    name: "infer-1".into(),
                    namespace: "web".into(),
                    containers: vec![container(
                        "server",
                        &[
                            ("nvidia.com/mig-1g.10gb", &["MIG-1", "MIG-unknown"]),
                            ("nvidia.com/gpu.shared", &["GPU-d::3"]),
                        ],
                    )],
                },
            ],
        };
        let map = attribute(&resp, |id| (id == "MIG-1").then(|| "GPU-m".to_string()));
        let who = |uuid: &str| -> Vec<String> {
            map.holders(uuid, 99)
                .iter()
                .map(|h| h.pod.clone())
                .collect()
        };
        assert_eq!(who("GPU-a"), ["train-0"]);
        assert_eq!(who("GPU-b"), ["train-0"]);
        assert!(who("GPU-c").is_empty(), "not an NVIDIA resource");
        assert_eq!(who("GPU-m"), ["infer-1"]);
        assert_eq!(who("GPU-d"), ["infer-1"]);
        assert_eq!(map.held(), 4);
    }

    #[test]
    fn a_message_round_trips_through_prost() {
        let resp = ListPodResourcesResponse {
            pod_resources: vec![PodResources {
                name: "p".into(),
                namespace: "n".into(),
                containers: vec![container("c", &[("nvidia.com/gpu", &["GPU-x"])])],
            }],
        };
        let bytes = resp.encode_to_vec();
        assert_eq!(
            ListPodResourcesResponse::decode(bytes.as_slice()).ok(),
            Some(resp)
        );
        assert!(ListPodResourcesResponse::decode(&[0xff, 0xff, 0xff][..]).is_err());
    }
}
