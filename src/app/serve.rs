//! `nvq serve`: validate the options, open NVML, start the per-GPU workers,
//! and hand the server a collection that reads every GPU under the
//! scrape's deadline (the same collectors and deadline as the loops).

use super::plan::Common;
use super::{per_gpu, LateRows};
use crate::cli::ServeArgs;
use crate::error::NvqError;
use crate::model::gpm::GpuExtra;
use crate::model::{Column, GpuIdent, Row};
use crate::nvml::Session;
use crate::render::exporter::{Profile, Scrape};
use crate::schedule::deadline::PerGpu;
use crate::serve::{self, collect};
use crate::source::{self, QueryMode, Request};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// `nvq serve`'s options, checked before NVML is touched.
pub struct ServePlan {
    pub profile: Profile,
    pub fields: Vec<usize>,
    /// The `--query-compute-apps` fields, for a profile with process families.
    pub app_fields: Option<Vec<usize>>,
    /// Read each GPU's PCIe throughput too (nvidia_gpu_exporter's opt-in).
    pub pcie_throughput: bool,
    pub interval: Duration,
    pub config: serve::Config,
}

impl ServePlan {
    pub fn from_args(s: &ServeArgs) -> Result<Self, NvqError> {
        let profile = Profile::parse(&s.profile)?;
        let mode = QueryMode::GPU;
        let fields = match (&s.query_gpu, profile.default_fields()) {
            (Some(list), _) => mode.resolve(list)?,
            (None, Some(list)) => mode.resolve(&list)?,
            // Every field nvidia-smi has (nvq's own ones when asked for by
            // --query-gpu), as the exporters that run nvidia-smi see them.
            (None, None) => {
                let infos = mode.fields();
                (0..infos.len()).filter(|&i| !infos[i].extension).collect()
            }
        };
        let app_fields = profile
            .app_fields(s.collect_processes)?
            .map(|list| QueryMode::COMPUTE_APPS.resolve(list))
            .transpose()?;
        let pcie_throughput = s.collect_pcie_throughput;
        if pcie_throughput && profile != Profile::NvidiaGpuExporter {
            return Err(NvqError::Usage(
                "--collect.pcie-throughput adds nvidia_gpu_exporter's PCIe series: use it with \
                 --profile=nvidia_gpu_exporter."
                    .into(),
            ));
        }
        let interval = match s.collect_interval.trim() {
            "0" | "0s" => Duration::ZERO,
            v => crate::script::parse_duration("--collect.interval", v)?,
        };
        let read_timeout = crate::script::parse_duration("--web.read-timeout", &s.read_timeout)?;
        let max_connections = s
            .max_connections
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=65_536).contains(n))
            .ok_or_else(|| {
                NvqError::Usage(format!(
                    "--web.max-connections needs a number from 1 to 65536, not \"{}\".",
                    s.max_connections
                ))
            })?;
        let path = &s.telemetry_path;
        if !path.starts_with('/') || path == "/" || path == "/healthz" {
            return Err(NvqError::Usage(format!(
                "--web.telemetry-path needs a path that starts with / and is not / or /healthz, not \
                 \"{path}\"."
            )));
        }
        let web = match &s.web_config_file {
            Some(f) => {
                let web = serve::web_config::WebConfig::load(f)?;
                let tls = web.tls.as_ref().map(|t| t.server_config(f)).transpose()?;
                (tls, web.users)
            }
            None => (None, Vec::new()),
        };
        Ok(ServePlan {
            profile,
            pcie_throughput,
            fields,
            app_fields,
            interval,
            config: serve::Config {
                telemetry_path: path.clone(),
                profile,
                read_timeout,
                max_connections,
                tls: web.0,
                users: web.1,
            },
        })
    }
}

/// The columns of `fields` of `mode`, as this driver's nvidia-smi names them.
fn columns(mode: QueryMode, fields: &[usize], major: u32) -> Vec<Column> {
    let infos = mode.fields();
    fields
        .iter()
        .filter_map(|&i| infos.get(i))
        .map(|f| Column::from_info(f, major))
        .collect()
}

/// Run the exporter until SIGTERM or SIGINT.
pub fn run(common: &Common<'_>, s: &ServeArgs) -> Result<(), NvqError> {
    let plan = ServePlan::from_args(s)?;
    let pods = super::pods::Plan::from_args(s, plan.profile)?;
    let session = Arc::new(common.session()?);
    let devices = common.gpus(&session)?;
    let selected = devices.clone();
    let count = session.device_count().unwrap_or(0);
    let major = session.driver_major();
    let gpu_columns = columns(QueryMode::GPU, &plan.fields, major);
    let app_columns = plan
        .app_fields
        .as_deref()
        .map(|f| columns(QueryMode::COMPUTE_APPS, f, major));
    let cuda_version = crate::nvml::raw::cuda_driver_version(&session)
        .map(crate::render::listing::cuda_version)
        .unwrap_or_default();
    let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default();
    let workers = start(&session, &devices, &plan, count)
        .ok_or_else(|| NvqError::Serve("cannot start the threads that read the GPUs".into()))?;
    let late = LateRows::new(QueryMode::GPU, &plan.fields, count);
    let gpus = devices.len();
    let job = collection(workers, late, devices);
    let xid = Arc::new(source::xid::XidCounts::default());
    if plan.profile.reads_energy_and_xid() {
        source::xid::watch(
            Arc::clone(&session),
            selected.clone(),
            Arc::clone(&xid),
            serve::log,
        )
        .map_err(|e| {
            NvqError::Serve(format!(
                "cannot start the thread that counts XID errors: {e}"
            ))
        })?;
    }
    let profile = plan.profile;
    let pod_app_columns = app_columns.clone();
    let render: collect::RenderFn = Arc::new(move |c: &collect::Collected| {
        let xid = xid.snapshot();
        profile.render(&Scrape {
            columns: &gpu_columns,
            rows: &c.rows,
            apps: app_columns.as_deref().map(|a| (a, c.apps.as_slice())),
            cuda_version: &cuda_version,
            hostname: &hostname,
            energy_mj: &c.energy_mj,
            extra: &c.extra,
            xid: &xid,
        })
    });
    let (job, render) = pods.start(&session, job, render, pod_app_columns)?;
    let collector = collect::Collector::new(job, plan.interval, render);
    let (listener, local) = serve::bind(&s.listen_address)?;
    let scheme = if plan.config.tls.is_some() {
        "https"
    } else {
        "http"
    };
    serve::log(&format!(
        "listening on {scheme}://{local}{} (profile {}, {} GPU(s))",
        plan.config.telemetry_path, s.profile, gpus
    ));
    serve::run(listener, plan.config, collector)
}

/// One worker job per GPU: its `--query-gpu` row and, for a profile with
/// process families, its processes. The handle is looked up on the worker,
/// under the deadline, on the first read.
fn start(
    session: &Arc<Session>,
    devices: &[u32],
    plan: &ServePlan,
    count: u32,
) -> Option<PerGpu<GpuRead>> {
    let jobs = devices
        .iter()
        .map(|&gpu| {
            let session = Arc::clone(session);
            let fields = plan.fields.clone();
            let app_fields = plan.app_fields.clone();
            let energy = plan.profile.reads_energy_and_xid();
            let extra = plan.profile.reads_extra();
            let pcie = plan.pcie_throughput;
            let gpm_ids = plan.profile.gpm_metrics();
            let own_gpm = plan.profile.gpu_gpm();
            let mut gpm = source::gpm::GpmReader::default();
            let mut targets = None;
            move || {
                let targets = targets.get_or_insert_with(|| source::targets(&session, &[gpu]));
                let read = |mode: QueryMode, fields: &[usize]| {
                    let req = Request {
                        fields,
                        count,
                        ident: true,
                    };
                    mode.collect(&session, targets, &req)
                };
                let rows = read(QueryMode::GPU, &fields);
                let apps = app_fields
                    .as_deref()
                    .map(|f| read(QueryMode::COMPUTE_APPS, f))
                    .unwrap_or_default();
                let energy_mj = energy
                    .then(|| {
                        targets
                            .first()
                            .and_then(|t| t.total_energy_mj(&session).ok())
                    })
                    .flatten();
                let mut extra = extra
                    .then(|| {
                        targets.first().map(|t| {
                            let c = t.context(&session, count);
                            source::gpm::extra(&mut gpm, &session, &c, gpm_ids, own_gpm)
                        })
                    })
                    .flatten();
                if pcie {
                    if let Some(t) = targets.first() {
                        let c = t.context(&session, count);
                        let x = extra.get_or_insert_with(GpuExtra::default);
                        x.pcie_kb_per_s = source::gpu::get::pcie_throughput_kb(&c).ok();
                    }
                }
                GpuRead {
                    rows,
                    apps,
                    energy_mj,
                    extra,
                }
            }
        })
        .collect();
    per_gpu(jobs)
}

/// What one job read.
struct GpuRead {
    rows: Vec<Row>,
    apps: Vec<Row>,
    energy_mj: Option<u64>,
    extra: Option<GpuExtra>,
}

/// One collection: every GPU read on the workers by the deadline; a GPU
/// that misses it gets its late row (its series are left out) and counts
/// as late. A late row keeps the identity the GPU last had.
fn collection(
    mut workers: PerGpu<GpuRead>,
    late: LateRows,
    devices: Vec<u32>,
) -> collect::CollectFn {
    let mut last: Vec<Option<Arc<GpuIdent>>> = vec![None; devices.len()];
    let mut minors: Vec<Option<u32>> = vec![None; devices.len()];
    Box::new(move |deadline| {
        let mut missed = 0;
        let mut when = None;
        let per_gpu = workers.sample(deadline, |i| {
            missed += 1;
            let when = *when.get_or_insert_with(SystemTime::now);
            GpuRead {
                rows: late.rows(devices[i], when, last[i].clone()),
                apps: Vec::new(),
                energy_mj: None,
                extra: None,
            }
        });
        let mut rows = Vec::with_capacity(per_gpu.len());
        let mut apps = Vec::new();
        let mut energy_mj = Vec::with_capacity(per_gpu.len());
        let mut extra = Vec::new();
        for (i, read) in per_gpu.into_iter().enumerate() {
            if let Some(g) = read.rows.iter().find_map(|r| r.gpu.clone()) {
                last[i] = Some(g);
            }
            // One energy value per GPU row (a GPU has one `--query-gpu` row).
            energy_mj.extend(read.rows.iter().map(|_| read.energy_mj));
            // A late GPU keeps its minor number (its `device` label).
            let x = read.extra.unwrap_or_else(|| GpuExtra {
                minor: minors[i],
                ..GpuExtra::default()
            });
            minors[i] = x.minor;
            extra.extend(read.rows.iter().map(|_| x.clone()));
            rows.extend(read.rows);
            apps.extend(read.apps);
        }
        collect::Collected {
            rows,
            apps,
            energy_mj,
            extra,
            late: missed,
        }
    })
}
