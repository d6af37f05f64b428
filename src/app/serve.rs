//! `nvq serve`: validate the options, bind the port, and hand the server a
//! startup that opens NVML, resolves `-i` and builds the collector: one
//! reader per GPU (the same collectors as the loops), each scrape under its
//! own deadline (`serve::collect`).

use super::plan::Common;
use super::LateRows;
use crate::cli::ServeArgs;
use crate::serve::{self, collect, collect::GpuRead};
use nvq_core::error::NvqError;
use nvq_core::model::gpm::GpuExtra;
use nvq_core::model::{Column, Fact, GpuIdent, NvmlCode, Row, Value};
use nvq_core::nvml::{select, Session};
use nvq_core::render::exporter::{GpuHealth, GpuState, Profile, Scrape};
use nvq_core::source::{self, QueryMode, Request};
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
    /// Label the process series with their MIG instance
    /// (nvidia_gpu_exporter's `--collect.compute-apps-mig`).
    pub app_mig_labels: bool,
    pub interval: Duration,
    /// `--trend-window`, `--rising-for`, `--min-rise`: the memory foresight's settings.
    pub trend: nvq_core::model::trend::TrendConfig,
}

impl ServePlan {
    /// The plan, and the server's configuration.
    pub fn from_args(s: &ServeArgs) -> Result<(Self, serve::Config), NvqError> {
        let profile = Profile::parse(&s.profile)?;
        let mode = QueryMode::GPU;
        let fields = match (&s.query_gpu, profile.default_fields()) {
            (Some(list), _) => mode.resolve(list)?,
            (None, Some(list)) => mode.resolve(&list)?,
            // Every field nvidia-smi has (nvq's own ones when asked for by
            // --query-gpu), as the exporters that run nvidia-smi see them;
            // the nvq profile adds memory.derived, so that a unified-memory
            // GPU's memory is the system's, marked (a label of nvq_gpu_info).
            (None, None) => {
                let infos = mode.fields();
                let derived = (profile == Profile::Nvq)
                    .then(|| mode.position(Fact::MemoryDerived))
                    .flatten();
                (0..infos.len())
                    .filter(|&i| !infos[i].extension || Some(i) == derived)
                    .collect()
            }
        };
        let app_fields = profile.app_fields(s.collect_processes)?.map(|ids| {
            ids.iter()
                .filter_map(|&f| QueryMode::COMPUTE_APPS.position(f))
                .collect()
        });
        let pcie_throughput = s.collect_pcie_throughput;
        if pcie_throughput && profile != Profile::NvidiaGpuExporter {
            return Err(NvqError::Usage(
                "--collect.pcie-throughput adds nvidia_gpu_exporter's PCIe series: use it with \
                 --profile=nvidia_gpu_exporter."
                    .into(),
            ));
        }
        let app_mig_labels = s.collect_compute_apps_mig;
        if app_mig_labels && profile != Profile::NvidiaGpuExporter {
            return Err(NvqError::Usage(
                "--collect.compute-apps-mig adds nvidia_gpu_exporter's MIG labels to its process \
                 series: use it with --profile=nvidia_gpu_exporter."
                    .into(),
            ));
        }
        let interval = s.collect_interval;
        let trend = s.trend.config();
        let read_timeout = s.read_timeout.duration;
        let write_timeout = s.write_timeout.duration;
        let idle_timeout = s.idle_timeout.duration;
        let max_connections = s.max_connections;
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
        let config = serve::Config {
            telemetry_path: path.clone(),
            profile,
            read_timeout,
            idle_timeout,
            write_timeout,
            max_connections,
            tls: web.0,
            users: web.1,
        };
        Ok((
            ServePlan {
                profile,
                pcie_throughput,
                app_mig_labels,
                fields,
                app_fields,
                interval,
                trend,
            },
            config,
        ))
    }
}

/// The columns of `fields` of `mode`, as this driver's nvidia-smi names them.
fn columns(mode: QueryMode, fields: &[usize], major: u32) -> Vec<Column> {
    mode.columns(fields, major)
}

/// Run the exporter until SIGTERM or SIGINT. The port is bound first; the
/// startup (NVML, `-i`, the versions, the workers) runs on a thread of its
/// own, so a hung startup call neither keeps nvq from answering `/healthz`
/// nor from stopping.
pub fn run(common: &Common<'_>, s: &ServeArgs) -> Result<(), NvqError> {
    if let Some(spec) = &s.answer {
        return super::serve_answer::run(common, spec, s.answer_within);
    }
    let (plan, config) = ServePlan::from_args(s)?;
    let pods = super::pods::Plan::from_args(s, plan.profile)?;
    let (listener, local) = serve::bind(&s.listen_address)?;
    let lib = common.lib.clone();
    let id = common.id.map(str::to_string);
    let profile_name = s.profile.clone();
    let startup: serve::Startup = Box::new(move |progress| {
        progress.step("nvmlInit and nvmlSystemGetDriverVersion");
        let session = Arc::new(Session::open(&lib)?);
        progress.step("-i: looking the GPUs up");
        let devices = select::select(&session, id.as_deref())?;
        progress.step("nvmlDeviceGetCount");
        let count = session.device_count().unwrap_or(0);
        progress.step("nvmlSystemGetCudaDriverVersion");
        let cuda_version = nvq_core::nvml::raw::cuda_driver_version(&session)
            .map(nvq_core::render::listing::cuda_version)
            .unwrap_or_default();
        progress.step("starting the GPU workers");
        let api = serve::api::Api::new(Arc::clone(&session), devices.clone(), count);
        let collector = collector(&session, devices, &plan, pods, count, cuda_version)?;
        Ok(serve::Ready {
            collector: collector.0,
            api,
            what: format!("profile {profile_name}, {} GPU(s)", collector.1),
        })
    });
    serve::run(listener, local, config, startup)
}

/// The collector of the selected GPUs, and how many there are.
fn collector(
    session: &Arc<Session>,
    devices: Vec<u32>,
    plan: &ServePlan,
    pods: super::pods::Plan,
    count: u32,
    cuda_version: String,
) -> Result<(collect::Collector, usize), NvqError> {
    let major = session.driver_major();
    let gpu_columns = columns(QueryMode::GPU, &plan.fields, major);
    let app_columns = plan
        .app_fields
        .as_deref()
        .map(|f| columns(QueryMode::COMPUTE_APPS, f, major));
    let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default();
    let reads = reads(session, &devices, plan, count);
    let late = LateRows::new(QueryMode::GPU, &plan.fields, count);
    let gpus = devices.len();
    let selected = devices.clone();
    let assemble = assemble(late, devices);
    let xid = Arc::new(source::xid::XidCounts::default());
    if plan.profile.reads_energy_and_xid() {
        source::xid::watch(Arc::clone(session), selected, Arc::clone(&xid), serve::log).map_err(
            |e| {
                NvqError::Serve(format!(
                    "cannot start the thread that counts XID errors: {e}"
                ))
            },
        )?;
    }
    let profile = plan.profile;
    let app_mig_labels = plan.app_mig_labels;
    let pod_app_columns = app_columns.clone();
    // The nvq profile's memory growth and time to full, from the collection's history.
    let trend = (profile == Profile::Nvq)
        .then(|| super::serve_trend::ServeTrend::new(&plan.fields, plan.trend))
        .flatten()
        .map(std::sync::Mutex::new);
    let render: collect::RenderFn = Arc::new(move |c: &collect::Collected| {
        let xid = xid.snapshot();
        let mut body = profile.render(&Scrape {
            columns: &gpu_columns,
            rows: &c.rows,
            apps: app_columns.as_deref().map(|a| (a, c.apps.as_slice())),
            app_mig_labels,
            cuda_version: &cuda_version,
            hostname: &hostname,
            energy_mj: &c.energy_mj,
            extra: &c.extra,
            xid: &xid,
        });
        if let Some(t) = &trend {
            let mut t = t.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            body.extend(t.observe(&c.rows));
        }
        body
    });
    let (assemble, render) = pods.start(session, assemble, render, pod_app_columns)?;
    let collector =
        collect::Collector::new(reads, plan.interval, assemble, render).map_err(|e| {
            NvqError::Serve(format!("cannot start the threads that read the GPUs: {e}"))
        })?;
    Ok((collector, gpus))
}

/// One read per GPU: its `--query-gpu` row and, for a profile with
/// process families, its processes. The handle is looked up on the GPU's
/// worker, under the scrape's deadline, on the first read.
fn reads(
    session: &Arc<Session>,
    devices: &[u32],
    plan: &ServePlan,
    count: u32,
) -> Vec<collect::ReadFn> {
    devices
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
            Box::new(move || {
                let targets = targets.get_or_insert_with(|| source::targets(&session, &[gpu]));
                let read = |mode: QueryMode, fields: &[usize]| {
                    mode.collect(&session, targets, &Request::new(fields, count, true))
                };
                let rows = read(QueryMode::GPU, &fields);
                let apps = app_fields
                    .as_deref()
                    .map(|f| read(QueryMode::COMPUTE_APPS, f))
                    .unwrap_or_default();
                let energy_mj = energy
                    .then(|| {
                        targets.first().and_then(|t| {
                            nvq_core::source::gpu::read::total_energy_mj(&t.context(&session, 0))
                                .ok()
                        })
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
                let lost = targets.is_empty() || rows.iter().any(is_lost);
                GpuRead {
                    rows,
                    apps,
                    energy_mj,
                    extra,
                    lost,
                }
            }) as collect::ReadFn
        })
        .collect()
}

/// Does NVML say, in this row, that its GPU is lost?
fn is_lost(row: &Row) -> bool {
    row.cells
        .iter()
        .any(|c| matches!(c, Value::Error(t) if t.code == NvmlCode::GPU_IS_LOST))
}

/// Puts a scrape's reads together: a GPU late for this scrape gets its
/// late row (its series are left out); a lost GPU's values are left out
/// too. Both keep the identity the GPU last had.
fn assemble(late: LateRows, devices: Vec<u32>) -> collect::AssembleFn {
    let mut last: Vec<Option<Arc<GpuIdent>>> = vec![None; devices.len()];
    let mut minors: Vec<Option<u32>> = vec![None; devices.len()];
    Box::new(move |reads| {
        let mut when = None;
        let mut rows = Vec::with_capacity(reads.len());
        let mut apps = Vec::new();
        let mut energy_mj = Vec::with_capacity(reads.len());
        let mut extra = Vec::new();
        let mut states = Vec::with_capacity(reads.len());
        for (i, read) in reads.iter().enumerate() {
            let Some(&gpu) = devices.get(i) else { continue };
            if let Some(g) = read.and_then(|r| r.rows.iter().find_map(|r| r.gpu.clone())) {
                last[i] = Some(g);
            }
            let state = match read {
                None => GpuState::Late,
                Some(r) if r.lost => GpuState::Lost,
                Some(_) => GpuState::Ok,
            };
            states.push(GpuHealth {
                index: gpu,
                uuid: last[i].as_ref().map(|g| g.uuid.clone()).unwrap_or_default(),
                state,
            });
            let (gpu_rows, read_extra, energy) = match read {
                Some(r) if !r.lost => (r.rows.clone(), r.extra.clone(), r.energy_mj),
                _ => {
                    let when = *when.get_or_insert_with(SystemTime::now);
                    (late.rows(gpu, when, last[i].clone()), None, None)
                }
            };
            // One energy value per GPU row (a GPU has one `--query-gpu` row).
            energy_mj.extend(gpu_rows.iter().map(|_| energy));
            // A late GPU keeps its minor number (its `device` label).
            let x = read_extra.unwrap_or_else(|| GpuExtra {
                minor: minors[i],
                ..GpuExtra::default()
            });
            minors[i] = x.minor;
            extra.extend(gpu_rows.iter().map(|_| x.clone()));
            rows.extend(gpu_rows);
            if let Some(r) = read.filter(|r| !r.lost) {
                apps.extend(r.apps.iter().cloned());
            }
        }
        collect::Collected {
            rows,
            apps,
            energy_mj,
            extra,
            states,
        }
    })
}
