//! `nvq serve --collect.pods`: the kubelet's answer (kept by
//! `source::pods` on a thread of its own) turned into labels on every
//! collection, and its health series added to every exposition. Both wrap
//! what `app::serve` builds; neither waits for the kubelet.

use crate::cli::ServeArgs;
use crate::pods::{self, Config, PodState};
use crate::serve::collect::{AssembleFn, Collected, RenderFn};
use nvq_core::error::NvqError;
use nvq_core::model::pods::{join_bounded, pod_labels, PodMap};
use nvq_core::model::{Column, Value};
use nvq_core::nvml::Session;
use nvq_core::render::exporter::Profile;
use std::sync::Arc;
use std::time::Duration;

/// The pod attribution asked for, checked before NVML is touched.
pub struct Plan(Option<Config>);

impl Plan {
    pub fn from_args(s: &ServeArgs, profile: Profile) -> Result<Self, NvqError> {
        if !s.collect_pods {
            return Ok(Plan(None));
        }
        if profile == Profile::NvidiaGpuExporter {
            return Err(NvqError::Usage(
                "--collect.pods labels the nvq and dcgm profiles' series; nvidia_gpu_exporter has no pod labels."
                    .into(),
            ));
        }
        let interval = s.pods_interval.duration;
        if interval < Duration::from_millis(100) {
            return Err(NvqError::Usage(format!(
                "--collect.pods.interval needs at least 100ms, not \"{}\".",
                s.pods_interval.given
            )));
        }
        Ok(Plan(Some(Config {
            socket: s.pods_socket.clone(),
            interval,
        })))
    }

    /// Start asking the kubelet (if asked to), and wrap the assembly and
    /// the rendering. `app_columns`: the process columns, where processes
    /// are read (their `pod_uid` labels a GPU the kubelet says nothing of).
    pub fn start(
        self,
        session: &Arc<Session>,
        job: AssembleFn,
        render: RenderFn,
        app_columns: Option<Vec<Column>>,
    ) -> Result<(AssembleFn, RenderFn), NvqError> {
        let Some(cfg) = self.0 else {
            return Ok((job, render));
        };
        let interval = cfg.interval;
        let state = Arc::new(PodState::default());
        pods::watch(
            Arc::clone(session),
            cfg,
            Arc::clone(&state),
            crate::serve::log,
        )
        .map_err(|e| NvqError::Serve(format!("cannot start the thread that lists pods: {e}")))?;
        let labels = Arc::clone(&state);
        let mut job = job;
        let job: AssembleFn = Box::new(move |reads| {
            let mut c = job(reads);
            let (map, _) = labels.snapshot(interval);
            label(&mut c, &map, app_columns.as_deref());
            c
        });
        let render: RenderFn = Arc::new(move |c: &Collected| {
            let mut out = render(c);
            let (_, health) = state.snapshot(interval);
            nvq_core::render::exporter::pods::render_health(&health, &mut out);
            out
        });
        Ok((job, render))
    }
}

/// Label each GPU row and process row with the containers holding its GPU;
/// a GPU no container holds gets the `pod_uid`s of its processes' cgroups.
fn label(c: &mut Collected, map: &PodMap, app_columns: Option<&[Column]>) {
    let pod_uid = app_columns.and_then(|cols| cols.iter().position(|c| c.name == "pod_uid"));
    for row in c.rows.iter_mut().chain(c.apps.iter_mut()) {
        if let Some(g) = row.gpu.clone() {
            row.labels
                .extend(pod_labels(&map.holders(&g.uuid, g.index)));
        }
    }
    let Some(col) = pod_uid else { return };
    for row in c
        .rows
        .iter_mut()
        .filter(|r| !r.labels.iter().any(|(k, _)| *k == "pod"))
    {
        let Some(g) = row.gpu.clone() else { continue };
        let uids: Vec<&str> = c
            .apps
            .iter()
            .filter(|a| a.gpu.as_ref().is_some_and(|ag| ag.uuid == g.uuid))
            .filter_map(|a| match a.cells.get(col) {
                Some(Value::Text(t)) if !t.is_empty() => Some(t.as_str()),
                _ => None,
            })
            .collect();
        if !uids.is_empty() {
            row.labels.push(("pod_uid", join_bounded(uids)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nvq_core::model::pods::PodRef;
    use nvq_core::model::{GpuIdent, Row};

    fn row(uuid: &str, index: u32, cells: Vec<Value>) -> Row {
        let mut r = Row::new(cells);
        r.gpu = Some(Arc::new(GpuIdent {
            index,
            uuid: uuid.into(),
            ..GpuIdent::default()
        }));
        r
    }

    #[test]
    fn held_gpus_get_pod_labels_others_their_processes_pod_uid() {
        let mut map = PodMap::default();
        map.insert(
            "GPU-a",
            PodRef {
                namespace: "ml".into(),
                pod: "train".into(),
                container: "t".into(),
            },
        );
        let cols = [Column::from_info(
            &nvq_core::model::FieldInfo::new("pod_uid", ""),
            580,
        )];
        let mut c = Collected {
            rows: vec![row("GPU-a", 0, vec![]), row("GPU-b", 1, vec![])],
            apps: vec![
                row("GPU-a", 0, vec![Value::text("uid-a")]),
                row("GPU-b", 1, vec![Value::text("uid-b")]),
                row("GPU-b", 1, vec![Value::text("uid-b")]),
            ],
            energy_mj: vec![],
            extra: vec![],
            states: Vec::new(),
        };
        label(&mut c, &map, Some(&cols));
        let keys = |r: &Row| {
            r.labels
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            keys(&c.rows[0]),
            ["pod=train", "namespace=ml", "container=t"]
        );
        assert_eq!(keys(&c.rows[1]), ["pod_uid=uid-b"]);
        assert_eq!(
            keys(&c.apps[0]),
            ["pod=train", "namespace=ml", "container=t"]
        );
        assert!(keys(&c.apps[1]).is_empty());
    }
}
