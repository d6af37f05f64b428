//! nvq's integration tests, as one test binary (`autotests = false` in
//! `Cargo.toml`): one link instead of one per file, and every test on the
//! same pool of threads. Each file of `tests/` is a module here; a new test
//! file needs its `mod` line below. They all run nvq through `common`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

mod bad_input;
mod compare_script;
mod completion_bash;
mod core_example;
mod deadline;
mod dmon;
mod face;
mod faults;
mod fidelity;
mod formats;
mod generated;
mod harness;
mod hostile;
mod hostile_users;
mod hosts;
mod hosts_exporters;
mod hosts_ssh;
mod init;
mod install;
mod layers;
mod live_processes;
mod loops;
mod mig;
mod nvlink;
mod personality;
mod planted;
mod plot;
mod plot_hostile;
mod plot_run;
mod pmon;
mod pods;
mod proptest_parsers;
mod query_gpu;
mod query_modes;
mod readme;
mod report;
mod report_public;
mod report_sections;
mod report_unit;
mod report_xml;
mod run;
mod run_schema;
mod run_torch;
mod run_verdicts;
mod scripting;
mod serve;
mod serve_dcgm;
mod serve_exporter;
mod serve_hostile;
mod serve_prometheus;
mod serve_series;
mod serve_tls;
mod summary_public;
mod summary_table;
mod top;
mod top_once;
mod topo;
mod trend;
mod unified_memory;
mod vgpu;
mod wait;
