//! A sharded `oc simulate` and `oc fairness` run as a job array on a real single-node Slurm
//! (Debian's `slurm-wlm` with `munge`, installed with apt-get when missing, and started here
//! with a config of the test's own in a scratch folder), merged, and checked against the
//! unsharded runs byte for byte; and `oc tune`, whose search is sequential, as one job array a
//! round until its parts hold the whole search, then merged and checked the same way. Where Slurm cannot be installed or started, the test says why
//! and is skipped. The daemons it started are stopped by their pids.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const SCENARIO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/grado-keep.oc");
const SHARDS: u64 = 3;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn oc(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oc")).args(args).current_dir(dir).env("NO_COLOR", "1").output().expect("oc runs")
}

fn runs(program: &str, arg: &str) -> bool {
    Command::new(program).arg(arg).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
}

/// Debian's `slurm-wlm` and `munge`, installed with apt-get when missing; why not, where they
/// cannot be.
fn slurm() -> Result<(), String> {
    // (`sbatch` wants a config even for its version: that it can be started is enough.)
    let found = |program: &str| Command::new(program).arg("--version").output().is_ok();
    let works = || runs("slurmctld", "-V") && runs("slurmd", "-V") && runs("munged", "--version") && found("sbatch");
    common::apt_install(&["slurm-wlm", "munge"], works)
}

/// The daemons this test started, stopped (by the pids in their pid files) when dropped.
struct Daemons {
    pid_files: Vec<PathBuf>,
}

impl Drop for Daemons {
    fn drop(&mut self) {
        for file in self.pid_files.iter().rev() {
            if let Some(pid) = std::fs::read_to_string(file).ok().and_then(|t| t.trim().parse::<u32>().ok()) {
                let _ = Command::new("kill").arg(pid.to_string()).status();
            }
        }
    }
}

fn short_host() -> String {
    Command::new("hostname").arg("-s").output().map(|o| text(&o.stdout).trim().to_string()).unwrap_or_default()
}

/// munged with a key of its own, then slurmctld and slurmd with the config written in `dir`;
/// why not, where they do not start or the node does not come up.
fn start(dir: &Path) -> Result<(Daemons, PathBuf), String> {
    let mut daemons = Daemons { pid_files: Vec::new() };
    let key = dir.join("munge.key");
    let bytes: Vec<u8> = (0..1024u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8 ^ std::process::id() as u8).collect();
    std::fs::write(&key, bytes).map_err(|e| e.to_string())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o400));
    }
    let socket = dir.join("munge.sock");
    let path = |name: &str| dir.join(name).display().to_string();
    let munged = Command::new("munged")
        .args(["--force", "--key-file", &path("munge.key"), "--socket", &path("munge.sock")])
        .args(["--pid-file", &path("munged.pid"), "--log-file", &path("munged.log"), "--seed-file", &path("munge.seed")])
        .output()
        .map_err(|e| format!("munged cannot run: {e}"))?;
    daemons.pid_files.push(dir.join("munged.pid"));
    if !munged.status.success() {
        return Err(format!("munged did not start: {}", text(&munged.stderr)));
    }
    let host = short_host();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Ports of this run's own, so that two runs on one machine do not meet.
    let port = 20_000 + (std::process::id() % 20_000) as u16;
    for folder in ["state", "spool"] {
        std::fs::create_dir_all(dir.join(folder)).map_err(|e| e.to_string())?;
    }
    let conf = format!(
        "ClusterName=octest\nSlurmctldHost={host}\nSlurmUser=root\nSlurmdUser=root\nAuthType=auth/munge\n\
         AuthInfo=socket={socket}\nCredType=cred/munge\nProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n\
         SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\nReturnToService=2\nMpiDefault=none\n\
         SlurmctldPort={port}\nSlurmdPort={}\nStateSaveLocation={}\nSlurmdSpoolDir={}\n\
         SlurmctldPidFile={}\nSlurmdPidFile={}\nSlurmctldLogFile={}\nSlurmdLogFile={}\n\
         JobCompType=jobcomp/none\nAccountingStorageType=accounting_storage/none\n\
         NodeName={host} CPUs={cpus} State=UNKNOWN\nPartitionName=oc Nodes={host} Default=YES MaxTime=INFINITE State=UP\n",
        port + 1,
        path("state"),
        path("spool"),
        path("slurmctld.pid"),
        path("slurmd.pid"),
        path("slurmctld.log"),
        path("slurmd.log"),
        socket = socket.display(),
    );
    let conf_path = dir.join("slurm.conf");
    std::fs::write(&conf_path, conf).map_err(|e| e.to_string())?;
    for (daemon, pid) in [("slurmctld", "slurmctld.pid"), ("slurmd", "slurmd.pid")] {
        let out = Command::new(daemon)
            .arg("-f")
            .arg(&conf_path)
            .env("SLURM_CONF", &conf_path)
            .output()
            .map_err(|e| format!("{daemon} cannot run: {e}"))?;
        daemons.pid_files.push(dir.join(pid));
        if !out.status.success() {
            return Err(format!("{daemon} did not start: {}", text(&out.stderr)));
        }
    }
    let up = Instant::now();
    loop {
        let sinfo = Command::new("sinfo").args(["-h", "-o", "%t"]).env("SLURM_CONF", &conf_path).output();
        if sinfo.as_ref().is_ok_and(|o| text(&o.stdout).trim() == "idle") {
            return Ok((daemons, conf_path));
        }
        if up.elapsed() > Duration::from_secs(30) {
            let log = std::fs::read_to_string(dir.join("slurmd.log")).unwrap_or_default();
            return Err(format!("the node did not come up in 30 s: {:?}\n{log}", sinfo.map(|o| text(&o.stdout))));
        }
        std::thread::sleep(Duration::from_millis(300));
    }
}

/// `sbatch --wait --array=1-N` of `script` (SLURM_ARRAY_TASK_ID is the shard), given 120 s.
fn array(dir: &Path, conf: &Path, script: &str) -> Result<(), String> {
    let job = dir.join("job.sh");
    std::fs::write(&job, format!("#!/bin/sh\nset -e\n{script}\n")).map_err(|e| e.to_string())?;
    let mut sbatch = Command::new("sbatch")
        .args(["--wait", &format!("--array=1-{SHARDS}"), "-o", &dir.join("task-%a.out").display().to_string()])
        .arg(&job)
        .current_dir(dir)
        .env("SLURM_CONF", conf)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("sbatch cannot run: {e}"))?;
    let began = Instant::now();
    loop {
        if let Ok(Some(status)) = sbatch.try_wait() {
            let out = sbatch.wait_with_output().map_err(|e| e.to_string())?;
            if status.success() {
                return Ok(());
            }
            let tasks: String =
                (1..=SHARDS).map(|k| std::fs::read_to_string(dir.join(format!("task-{k}.out"))).unwrap_or_default()).collect();
            return Err(format!("the job array failed: {}{}\n{tasks}", text(&out.stdout), text(&out.stderr)));
        }
        if began.elapsed() > Duration::from_secs(120) {
            let _ = sbatch.kill();
            return Err("the job array did not end in 120 s".into());
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The tuning of `tests/fixtures/tune/skirmish.oc` (20 games a setting), in a project of its
/// own under `dir/tune`: a job array a round while the merge says the parts lack games (exit
/// 3), then the merged report checked against the unsharded run's. The rounds it took.
fn tune_rounds(dir: &Path, conf: &Path) -> Result<u32, String> {
    let project = dir.join("tune");
    std::fs::create_dir_all(&project).map_err(|e| e.to_string())?;
    std::fs::write(project.join("oc.toml"), "[project]\nname = \"tune\"\n").map_err(|e| e.to_string())?;
    for f in ["field.map.toml", "skirmish.oc"] {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tune").join(f);
        std::fs::copy(from, project.join(f)).map_err(|e| e.to_string())?;
    }
    let run = ["tune", "skirmish.oc", "--games", "20", "--seed", "2"];
    let bin = env!("CARGO_BIN_EXE_oc");
    let script = format!("cd tune\n'{bin}' {} --shard $SLURM_ARRAY_TASK_ID/{SHARDS} --parts parts", run.join(" "));
    for round in 0..40 {
        let merged = oc(&project, &[&run[..], &["--parts", "parts"]].concat());
        match merged.status.code() {
            Some(3) => array(dir, conf, &script)?,
            Some(0) => {
                let whole = oc(&project, &run);
                assert!(whole.status.success(), "{}", text(&whole.stderr));
                assert_eq!(text(&merged.stdout), text(&whole.stdout), "tune");
                return Ok(round);
            }
            _ => return Err(format!("the merge failed: {}", text(&merged.stderr))),
        }
    }
    Err("the tuning's rounds did not end in 40 job arrays".into())
}

#[test]
fn a_slurm_job_array_of_shards_merges_into_the_unsharded_reports() {
    if let Err(why) = slurm() {
        eprintln!("skipped: a real Slurm is not available ({why})");
        return;
    }
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-slurm-{}", std::process::id())));
    let (daemons, conf) = match start(&dir) {
        Ok(started) => started,
        Err(why) => {
            eprintln!("skipped: Slurm did not start here ({why})");
            return;
        }
    };
    let bin = env!("CARGO_BIN_EXE_oc");
    let k = "$SLURM_ARRAY_TASK_ID";
    let script = format!(
        "'{bin}' simulate '{SCENARIO}' --games 9 --seed 5 --shard {k}/{SHARDS} --out sim-{k}.json\n\
         '{bin}' fairness '{SCENARIO}' --games 4 --seed 5 --shard {k}/{SHARDS} --out fair-{k}.json"
    );
    let ran = array(&dir, &conf, &script).and_then(|()| tune_rounds(&dir, &conf));
    drop(daemons);
    let rounds = ran.unwrap();
    assert!(rounds >= 2, "{rounds} rounds");
    for (command, whole, prefix) in [
        ("simulate", ["simulate", SCENARIO, "--games", "9", "--seed", "5"], "sim"),
        ("fairness", ["fairness", SCENARIO, "--games", "4", "--seed", "5"], "fair"),
    ] {
        let whole = oc(&dir, &whole);
        assert!(whole.status.success(), "{}", text(&whole.stderr));
        let parts: Vec<String> = (1..=SHARDS).map(|k| format!("{prefix}-{k}.json")).collect();
        let mut args = vec![command, "merge"];
        args.extend(parts.iter().map(String::as_str));
        let merged = oc(&dir, &args);
        assert!(merged.status.success(), "{}", text(&merged.stderr));
        assert_eq!(text(&merged.stdout), text(&whole.stdout), "{command}");
    }
}
