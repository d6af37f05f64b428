//! `--hosts` for the queries (`--query-gpu`, `--query-compute-apps`) and
//! the short commands built on them (`nvq mem`, `ps`, `busy`): every node
//! is asked for the same fields through its `nvq serve` (`crate::hosts`),
//! each sample under one deadline for all of them, as a loop reads its
//! GPUs (`schedule::deadline`: one lane per node that is slow, one for all
//! the others); the rows get a `host` column first (a `host` label in
//! Prometheus) and go through the scripting flags and formats as local
//! rows do.
//!
//! A node that cannot be read, or does not answer by the deadline, gives no
//! rows; nvq says so on stderr, by host, once each time its state changes
//! (in a loop), and a one-shot query then exits with
//! [`crate::ExitCode::HostsFailed`] after printing the other nodes' rows.

use super::plan::Common;
use super::{apply_script, finish_script, LateRows, QueryPlan, ScriptRun};
use crate::hosts::{self, Client, Failure, Host};
use crate::output::SinkMode;
use crate::schedule::deadline;
use crate::schedule::{self as looping, Schedule};
use crate::script::Quantifier;
use nvq_core::error::NvqError;
use nvq_core::model::{Column, Row, Value};
use nvq_core::render::FormatKind;
use nvq_core::source::QueryMode;
use std::time::{Duration, Instant};

/// How long a one-shot query waits for its nodes.
pub const ONE_SHOT_WAIT: Duration = Duration::from_secs(10);

/// The `host` column's name and label.
pub const HOST: &str = "host";

/// The driver generation whose header names the columns take: the node's
/// own is not known here, so today's names.
const HEADER_DRIVER: u32 = u32::MAX;

/// What a node's read gave this sample.
enum Read {
    Rows(Vec<Row>, Vec<u32>),
    Failed(Failure),
    Late,
}

/// A node's state as last reported, so that a loop says each change once.
#[derive(Clone, PartialEq)]
enum Said {
    Fine,
    Failed(String),
}

/// Run a query on every node of `hosts`.
pub fn run_query(
    common: &Common<'_>,
    plan: &QueryPlan,
    hosts: Vec<Host>,
    client: Client,
) -> Result<(), NvqError> {
    run(common, plan, hosts, client, &mut None)
}

/// `nvq wait --hosts`: run the query until its `--until` holds; the host
/// and GPU (NVML index) of the first row it holds for in the last sample,
/// `None` if the loop ended otherwise (a signal).
pub fn wait_for(
    common: &Common<'_>,
    plan: &QueryPlan,
    hosts: Vec<Host>,
    client: Client,
) -> Result<Option<(String, u32)>, NvqError> {
    let mut found = Some(None);
    run(common, plan, hosts, client, &mut found)?;
    Ok(found.flatten())
}

/// `nvq wait --hosts`'s answer on stdout, one line: `HOST GPU`.
pub fn print_found(host: &str, gpu: u32) -> Result<(), NvqError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{} {gpu}", shown(host))
        .and_then(|()| out.flush())
        .map_err(|source| NvqError::Output {
            path: "standard output".into(),
            source,
        })
}

/// [`run_query`]; with `found` `Some`, each sample notes there the host and
/// GPU of the first row `--until` holds for.
fn run(
    common: &Common<'_>,
    plan: &QueryPlan,
    hosts: Vec<Host>,
    client: Client,
    found: &mut Option<Option<(String, u32)>>,
) -> Result<(), NvqError> {
    let mode = if plan.format.kind.replaces_file() {
        SinkMode::ReplaceEachSample
    } else {
        SinkMode::Append
    };
    let mut sink = common.sink(mode)?;
    let infos = plan.mode.fields();
    let mut script = plan.script.clone();
    let want: Vec<&'static str> = script
        .read()
        .iter()
        .filter_map(|&i| infos.get(i).map(|f| f.name))
        .collect();
    let fields: Vec<Column> = plan.mode.columns(&plan.fields, HEADER_DRIVER);
    // Prometheus has the host as a label of every series; the other
    // formats as a column, first.
    let host_column = plan.format.kind != FormatKind::Prometheus;
    let mut columns = Vec::with_capacity(fields.len() + 1);
    if host_column {
        columns.push(Column::plain(
            HOST,
            None,
            "The node the row was read from (--hosts).",
        ));
    }
    columns.extend(fields.iter().cloned());
    let colour = crate::output::terminal::stdout_colour(common.filename.is_some());
    let mut fmt = plan.format.formatter_with(colour);
    let schedule = Schedule {
        interval: plan.interval,
        count: plan.count,
        deadline: plan.script.timeout,
    };
    let wait = plan.interval.map_or(ONE_SHOT_WAIT, deadline::limit_for);
    let option = plan.mode.option();
    // A loop shares one ssh connection per ssh:// node among its samples;
    // the masters live (and are killed and reaped) with this function.
    let (mut lanes, _masters) = hosts::lanes::start(
        &hosts,
        &client,
        plan.interval.is_some(),
        None,
        |mut conn| {
            let want = want.clone();
            move || match hosts::read_on(&mut conn, option, &want, Instant::now() + wait) {
                Ok((rows, late)) => Read::Rows(rows, late),
                Err(f) => Read::Failed(f),
            }
        },
    )?;
    let late_rows = LateRows::new(plan.mode, script.read(), 0);
    let mut said = vec![Said::Fine; hosts.len()];
    let mut failed_now = 0;
    let mut failed = None;
    let end = looping::run_with(schedule, &columns, fmt.as_mut(), &mut sink, |tick| {
        let due = if plan.interval.is_some() {
            tick.deadline
        } else {
            Instant::now() + wait
        };
        let reads = lanes.sample(due, |_| Read::Late);
        let when = tick.due_wall();
        let mut rows = Vec::new();
        failed_now = 0;
        for ((host, read), said) in hosts.iter().zip(reads).zip(said.iter_mut()) {
            let now = match read {
                Read::Rows(mut got, late) => {
                    if plan.mode.row_per_gpu() {
                        got.extend(late.iter().flat_map(|&g| late_rows.rows(g, when, None)));
                    }
                    let label = || (HOST, host.name.clone());
                    for mut r in got {
                        r.labels.insert(0, label());
                        rows.push(r);
                    }
                    Said::Fine
                }
                Read::Failed(f) => Said::Failed(f.about(&shown(&host.name))),
                Read::Late => Said::Failed(format!(
                    "{}: no answer within {:.1} s",
                    shown(&host.name),
                    due.saturating_duration_since(tick.due).as_secs_f64()
                )),
            };
            if let Said::Failed(line) = &now {
                failed_now += 1;
                if *said != now {
                    tell(line);
                }
            } else if *said != now {
                tell(&format!("{}: answering again", shown(&host.name)));
            }
            *said = now;
        }
        let now = when
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(f64::NAN, |d| d.as_secs_f64());
        if let (Some(found), Some((until, _))) = (found.as_mut(), &script.until) {
            *found = rows.iter().find(|r| until.holds(&r.cells)).and_then(|r| {
                let host = r.labels.iter().find(|(k, _)| *k == HOST)?.1.clone();
                Some((host, r.gpu.as_ref()?.index))
            });
        }
        // `--until-all` holds over every node's rows: never while a node
        // could not be read (its rows are unknown, not absent).
        let until_all = matches!(&script.until, Some((_, Quantifier::All)));
        let (mut rows, mut flow) = apply_script(&mut script, rows, None, now, &mut failed);
        if until_all && failed_now > 0 && failed.is_none() {
            flow = looping::Flow::Continue;
        }
        if host_column {
            for r in &mut rows {
                let host = r
                    .labels
                    .iter()
                    .find(|(k, _)| *k == HOST)
                    .map(|(_, v)| Value::text(v.clone()))
                    .unwrap_or(Value::NotAvailable);
                r.cells.insert(0, host);
            }
        }
        Ok((rows, flow))
    })?;
    let run = ScriptRun {
        end,
        failed,
        count: plan.count,
        timeout: common.timeout,
    };
    finish_script(&script, run, &fields, plan.format)?;
    if failed_now > 0 && plan.interval.is_none() {
        return Err(NvqError::Hosts(format!(
            "{failed_now} of {} node(s) could not be read",
            hosts.len()
        )));
    }
    Ok(())
}

/// A node's name as a message shows it.
pub fn shown(name: &str) -> String {
    nvq_core::render::printable(name).into_owned()
}

/// One line on stderr.
pub fn tell(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "nvq: {line}");
}

/// The nodes `--hosts` (else `$NVQ_HOSTS`) names, `None` when it names
/// none; the `--hosts-*` options without nodes are a usage error.
pub fn named(a: &crate::cli::hosts::HostsArgs) -> Result<Option<Vec<Host>>, NvqError> {
    let hosts = hosts::list::hosts(a.hosts.as_deref())?;
    if hosts.is_none() && a.any() {
        return Err(NvqError::Usage(
            "the --hosts-* options say how to reach the nodes of --hosts (or $NVQ_HOSTS): name them."
                .into(),
        ));
    }
    Ok(hosts)
}

/// The nodes a query reads, and how (`--hosts`, else `$NVQ_HOSTS`);
/// `None`: the local GPUs. Only `--query-gpu` and `--query-compute-apps`
/// (and the short commands built on them) read nodes.
pub fn wanted(
    common: &Common<'_>,
    mode: QueryMode,
) -> Result<Option<(Vec<Host>, Client)>, NvqError> {
    let a = common.hosts;
    let Some(hosts) = named(a)? else {
        return Ok(None);
    };
    if mode != QueryMode::GPU && mode != QueryMode::COMPUTE_APPS {
        return Err(NvqError::Usage(format!(
            "--hosts reads --query-gpu and --query-compute-apps from other nodes, not --{}.",
            mode.option()
        )));
    }
    if common.id.is_some() {
        return Err(NvqError::Usage(
            "-i selects local GPUs; with --hosts, pick GPUs with --where (e.g. --where 'index == 0')."
                .into(),
        ));
    }
    let client = client(&hosts, &options(a))?;
    Ok(Some((hosts, client)))
}

/// How the `--hosts-*` options say to reach the nodes (files not read yet).
pub fn options(a: &crate::cli::hosts::HostsArgs) -> crate::hosts::Options {
    crate::hosts::Options {
        user: a.hosts_user.clone(),
        password_file: a.hosts_password_file.clone(),
        bearer_token_file: a.hosts_bearer_token_file.clone(),
        ca_file: a.hosts_ca_file.clone(),
        cert_file: a.hosts_cert_file.clone(),
        key_file: a.hosts_key_file.clone(),
        server_name: a.hosts_server_name.clone(),
    }
}

/// The client that reaches `hosts` as `options` say: its credentials and
/// (for `https://` nodes) TLS settings read from their files.
pub fn client(hosts: &[Host], options: &crate::hosts::Options) -> Result<Client, NvqError> {
    let credentials = options.credentials()?;
    let tls = if hosts.iter().any(|h| h.tls) {
        options.tls()?
    } else {
        None
    };
    Ok(Client::new(
        tls,
        options.server_name.clone(),
        credentials.as_ref(),
    ))
}
