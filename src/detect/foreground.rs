//! Which agent runs in a pane, from the processes of the job in front of
//! its terminal (reference §5.4, plus taw's additions).
//!
//! [`identify`] is a pure function over a list of processes, so it is
//! tested with tables of real-looking process lists; [`read_job`] fills the
//! list from the system (`/proc` on Linux, `ps` elsewhere).

use super::agents::{self, Agent};

/// One process, as the system describes it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Process {
    pub pid: u32,
    pub ppid: u32,
    /// Process group.
    pub pgid: u32,
    /// The process group its terminal gives input to (0 or less: none).
    pub tpgid: i64,
    /// The kernel's name for it (`comm`).
    pub comm: String,
    pub argv: Vec<String>,
    /// Stopped (C-z).
    pub stopped: bool,
}

/// The job in front of a pane's terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Front {
    /// The pane's own shell is in front: nothing else runs.
    Shell,
    /// Another job: its process group and members, leader first.
    Job { pgid: u32, members: Vec<Process> },
    /// The process table could not say.
    Unknown,
}

/// An agent found in a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Found {
    pub agent: &'static Agent,
    pub pid: u32,
    /// The container runtime that runs it (`docker`, `podman`...), when the
    /// process that names it is one.
    pub runtime: Option<&'static str>,
}

/// Names of shells: a pane whose process is one of these, in front, holds
/// no agent.
pub(crate) const SHELLS: &[&str] = &[
    "sh",
    "bash",
    "dash",
    "zsh",
    "fish",
    "ksh",
    "mksh",
    "csh",
    "tcsh",
    "elvish",
    "xonsh",
    "nu",
    "pwsh",
    "powershell",
    "cmd",
    "ash",
    "yash",
    "oksh",
    "loksh",
];

/// Programs that run another program named by an argument.
const NODE_LIKE: &[&str] = &["node", "nodejs", "bun", "deno", "tsx", "ts-node"];
const CONTAINER_RUNTIMES: &[&str] = &["docker", "podman", "nerdctl", "finch", "container"];

pub(crate) fn is_shell(name: &str) -> bool {
    let name = name.trim_start_matches('-').to_ascii_lowercase();
    SHELLS.contains(&name.as_str())
}

fn is_python(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("python") else {
        return false;
    };
    rest.is_empty() || rest.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

/// The basename of a path-like word.
fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Whether a process is a shell (interactive or not), by the name it goes by.
pub(crate) fn is_shell_process(process: &Process) -> bool {
    is_shell(&effective_name(process))
}

/// The name a process goes by: its argv[0]'s basename, else its comm.
fn effective_name(process: &Process) -> String {
    process
        .argv
        .first()
        .map(|arg0| basename(arg0).trim_start_matches('-').to_ascii_lowercase())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| process.comm.to_ascii_lowercase())
}

/// A shell that reads commands from its terminal: not one running a
/// script (`sh ~/bin/claude`) or a command line (`sh -c claude`, which is
/// how tmux starts a window's command), whose group is the job then.
pub(crate) fn is_interactive_shell(process: &Process) -> bool {
    let name = effective_name(process);
    if !is_shell(&name) {
        return false;
    }
    let args = process.argv.get(1..).unwrap_or(&[]);
    let runs_code = args.iter().any(|arg| {
        arg == "-c"
            || (arg.starts_with('-')
                && !arg.starts_with("--")
                && arg.len() > 1
                && arg[1..].contains('c'))
    });
    !runs_code && script_argument(&name, args).is_none()
}

/// The front of a pane: given the pane's own process and the processes of
/// its terminal's foreground group.
pub(crate) fn front_of(pane: &Process, group: Vec<Process>) -> Front {
    if pane.tpgid <= 0 {
        return Front::Unknown;
    }
    let pgid = pane.tpgid as u32;
    if pgid == pane.pgid && is_interactive_shell(pane) {
        return Front::Shell;
    }
    let mut members: Vec<Process> = group.into_iter().filter(|p| p.pgid == pgid).collect();
    // The pane's own process is in front and is no shell (`tmux new-window
    // claude`): it is the job, whatever else the group holds.
    if pgid == pane.pgid && !members.iter().any(|p| p.pid == pane.pid) {
        members.push(pane.clone());
    }
    if members.is_empty() {
        return Front::Unknown;
    }
    members.sort_by_key(|p| (p.pid != pgid, p.pid));
    Front::Job { pgid, members }
}

/// Whether the pane whose process is `pid` has its own interactive shell
/// in front: at its prompt, running no job.
pub(crate) fn shell_at_prompt(pid: u32) -> bool {
    read_process(pid).is_some_and(|pane| matches!(front_of(&pane, Vec::new()), Front::Shell))
}

/// The agent a job runs, if any. The group leader's answer wins; else the
/// process found with the most certainty (through its arguments, then by
/// its own name), the first on a tie.
pub(crate) fn identify(
    members: &[Process],
    resolve_link: &dyn Fn(&str) -> Option<String>,
) -> Option<Found> {
    let mut best: Option<(Found, u8)> = None;
    for (index, process) in members.iter().enumerate() {
        if process.stopped {
            continue;
        }
        let Some((agent, score)) = candidate(process, resolve_link) else {
            continue;
        };
        let found = Found {
            agent,
            pid: process.pid,
            runtime: container_runtime(process),
        };
        if index == 0 && process.pid == process.pgid {
            return Some(found);
        }
        if best.is_none_or(|(_, best_score)| score > best_score) {
            best = Some((found, score));
        }
    }
    best.map(|(found, _)| found)
}

/// What one process says about itself: an agent and how sure (3: through
/// its arguments or a wrapper, 2: its own name).
fn candidate(
    process: &Process,
    resolve_link: &dyn Fn(&str) -> Option<String>,
) -> Option<(&'static Agent, u8)> {
    let name = effective_name(process);
    let args = process.argv.get(1..).unwrap_or(&[]);
    if name == "tmux" {
        return None;
    }
    if NODE_LIKE.contains(&name.as_str()) || is_python(&name) || is_shell(&name) {
        let script = script_argument(&name, args)?;
        return resolve_word(script, resolve_link).map(|agent| (agent, 3));
    }
    if CONTAINER_RUNTIMES.contains(&name.as_str()) {
        return container_agent(args, resolve_link).map(|agent| (agent, 3));
    }
    if let Some(agent) = agents::lookup(&name) {
        let own_name = agents::normalize(&process.comm) == name;
        return Some((agent, if own_name { 2 } else { 3 }));
    }
    // A process that rewrote its argv into one string with spaces.
    if let Some(first) = process
        .argv
        .first()
        .and_then(|a| a.split_whitespace().next())
        && let Some(agent) = agents::lookup(basename(first))
    {
        return Some((agent, 3));
    }
    let arg0 = process.argv.first()?;
    resolve_word(arg0, resolve_link).map(|agent| (agent, 3))
}

/// The script a runtime or shell runs: its first argument that is not an
/// option (or an option's value); none for code given inline.
fn script_argument<'a>(runtime: &str, args: &'a [String]) -> Option<&'a str> {
    let node = NODE_LIKE.contains(&runtime);
    let python = is_python(runtime);
    let mut words = args.iter().map(String::as_str).peekable();
    // `bun run x`, `deno run x`.
    if (runtime == "bun" || runtime == "deno") && words.peek() == Some(&"run") {
        words.next();
    }
    while let Some(word) = words.next() {
        if word == "--" {
            return words.next();
        }
        if node {
            match word {
                "-e" | "--eval" | "-p" | "--print" => return None,
                "-r"
                | "--require"
                | "--loader"
                | "--import"
                | "--experimental-loader"
                | "--inspect-port"
                | "-W"
                | "-X"
                | "-S"
                | "-L"
                | "-o" => {
                    words.next();
                    continue;
                }
                _ => {}
            }
        } else if python {
            match word {
                "-c" | "-m" => return None,
                "-W" | "-X" => {
                    words.next();
                    continue;
                }
                _ => {}
            }
        } else {
            // A shell: -c is inline code; these take a value.
            match word {
                "-c" => return None,
                "--rcfile" | "--init-file" | "-O" | "+O" | "-o" | "+o" => {
                    words.next();
                    continue;
                }
                _ => {}
            }
            if word.starts_with('-')
                && word.len() > 1
                && !word.starts_with("--")
                && word.contains('c')
            {
                // Bundled flags such as -lc: inline code too.
                return None;
            }
            if word.starts_with('+') && word.len() > 1 {
                continue;
            }
        }
        if word.starts_with('-') && word.len() > 1 {
            continue;
        }
        return Some(word);
    }
    None
}

/// The container runtime a process is, by the name it goes by.
fn container_runtime(process: &Process) -> Option<&'static str> {
    let name = effective_name(process);
    CONTAINER_RUNTIMES.iter().copied().find(|r| *r == name)
}

/// Options of `run` and `exec` that take a value as the next word: a
/// folder given to `-v` or `-w` is no program (a checkout called `codex`).
const VALUE_OPTIONS: &[&str] = &[
    "-v",
    "--volume",
    "-w",
    "--workdir",
    "-e",
    "--env",
    "--env-file",
    "-u",
    "--user",
    "--name",
    "-l",
    "--label",
    "--network",
    "--net",
    "--mount",
    "--entrypoint",
    "-h",
    "--hostname",
    "-p",
    "--publish",
    "--platform",
    "--userns",
    "--ulimit",
    "--device",
    "--cap-add",
    "--cap-drop",
    "--security-opt",
    "--tmpfs",
    "--add-host",
    "--dns",
    "--group-add",
    "--cpus",
    "-m",
    "--memory",
    "--shm-size",
    "--restart",
    "--ipc",
    "--pid",
    "--log-driver",
    "--log-opt",
    "--gpus",
    "--pull",
    "--runtime",
    "--cgroups",
    "--cidfile",
    "--stop-signal",
    "--expose",
    "--annotation",
    "--arch",
    "--os",
    "--detach-keys",
    "--label-file",
    "--secret",
];

/// A container runtime runs the agent its arguments start.
fn container_agent(
    args: &[String],
    resolve_link: &dyn Fn(&str) -> Option<String>,
) -> Option<&'static Agent> {
    let start = args.iter().position(|a| a == "run" || a == "exec")?;
    let mut words = args[start + 1..].iter();
    while let Some(word) = words.next() {
        if word.starts_with('-') {
            if VALUE_OPTIONS.contains(&word.as_str()) {
                words.next();
            }
            continue;
        }
        if let Some(agent) =
            agents::lookup(basename(word)).or_else(|| resolve_word(word, resolve_link))
        {
            return Some(agent);
        }
    }
    None
}

/// A path or name: the agent it names, by its basename, a known package
/// entry, or the target of a link.
fn resolve_word(
    word: &str,
    resolve_link: &dyn Fn(&str) -> Option<String>,
) -> Option<&'static Agent> {
    let word = word.trim_matches(|c| c == '"' || c == '\'');
    if word.is_empty() {
        return None;
    }
    if let Some(agent) = agents::lookup(basename(word)) {
        return Some(agent);
    }
    let path = word.replace('\\', "/");
    const PACKAGES: &[(&str, &str)] = &[
        ("@earendil-works/pi-coding-agent/dist/cli", "pi"),
        ("@mariozechner/pi-coding-agent/dist/cli", "pi"),
        ("mastracode/dist/cli", "mastracode"),
        ("@anthropic-ai/claude-code/cli.js", "claude"),
        ("@anthropic-ai/claude-code/cli.mjs", "claude"),
        ("@google/gemini-cli/dist/index.js", "gemini"),
        ("@openai/codex/bin/codex", "codex"),
    ];
    for (entry, id) in PACKAGES {
        if path.contains(entry) {
            return agents::by_id(id);
        }
    }
    if path.matches('/').count() >= 1 && path.trim_start_matches('/').contains('/') {
        let target = resolve_link(word)?;
        if target != word {
            return agents::lookup(basename(&target)).or_else(|| {
                PACKAGES
                    .iter()
                    .find(|(entry, _)| target.contains(entry))
                    .and_then(|(_, id)| agents::by_id(id))
            });
        }
    }
    None
}

/// Follows links on the real file system.
pub(crate) fn resolve_link_on_disk(word: &str) -> Option<String> {
    std::fs::canonicalize(word)
        .ok()
        .map(|path| path.display().to_string())
}

/// Reads the pane's own process and the members of its terminal's
/// foreground group.
pub(crate) fn read_job(pane_pid: u32) -> Option<(Process, Vec<Process>)> {
    let pane = read_process(pane_pid)?;
    let group = read_group(&pane);
    Some((pane, group))
}

/// How long a pane's process may still be tmux's fork: a pane just made
/// under load runs its program a moment after tmux told of it (seconds,
/// on a busy machine; only a pane still in that state waits).
const FORK_BECOMES_PROGRAM: std::time::Duration = std::time::Duration::from_secs(3);

/// [`read_job`], once the pane's process is its program: while it is still
/// the fork tmux made (its parent's name and words), looked at again every
/// 10 ms, at most [`FORK_BECOMES_PROGRAM`]. No one tells of an exec.
pub(crate) fn read_started_job(pane_pid: u32) -> Option<(Process, Vec<Process>)> {
    let stop = std::time::Instant::now() + FORK_BECOMES_PROGRAM;
    loop {
        let job = read_job(pane_pid)?;
        if !is_fork_of_parent(&job.0) || std::time::Instant::now() >= stop {
            return Some(job);
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Whether a process is still a fork that has not run its program: it has
/// its parent's name and words.
fn is_fork_of_parent(process: &Process) -> bool {
    process.ppid > 1
        && read_process(process.ppid)
            .is_some_and(|parent| parent.comm == process.comm && parent.argv == process.argv)
}

/// Reads one process.
pub(crate) fn read_process(pid: u32) -> Option<Process> {
    match table() {
        Table::Proc => procfs::read_process(pid),
        Table::Ps => ps::read_process(pid),
    }
}

/// The members of the group in front of `pane`'s terminal. When that is
/// the pane's own group, the process table is read only for a shell that
/// runs a command (its children are the job); an interactive shell or a
/// program of its own is known without it.
pub(crate) fn read_group(pane: &Process) -> Vec<Process> {
    if pane.tpgid <= 0 {
        return Vec::new();
    }
    let own = pane.tpgid as u32 == pane.pgid;
    if own && (!is_shell(&effective_name(pane)) || is_interactive_shell(pane)) {
        return Vec::new();
    }
    match table() {
        Table::Proc => procfs::read_group_under(pane.pid, pane.tpgid as u32),
        Table::Ps => ps::read_group(pane.tpgid as u32),
    }
}

/// Whether a process runs.
pub(crate) fn is_alive(pid: u32) -> bool {
    read_process(pid).is_some()
}

/// The folder a process is in, where the system tells (Linux's `/proc`);
/// `ps` has no column for it.
pub(crate) fn process_cwd(pid: u32) -> Option<String> {
    if pid == 0 {
        return None;
    }
    std::fs::read_link(format!("/proc/{pid}/cwd"))
        .ok()
        .map(|path| crate::paths::folder_as_said(&path.display().to_string()))
}

/// Where the process table comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Table {
    /// Linux's `/proc`: no process started.
    Proc,
    /// `ps`: every other system.
    Ps,
}

/// `/proc` on Linux, `ps` elsewhere; `TAW_PROCESS_TABLE=ps` makes Linux
/// use `ps` (the test suite runs detection through both).
fn table() -> Table {
    choose_table(
        cfg!(target_os = "linux"),
        std::env::var("TAW_PROCESS_TABLE").ok().as_deref(),
    )
}

fn choose_table(linux: bool, asked: Option<&str>) -> Table {
    match asked {
        Some("ps") => Table::Ps,
        Some("proc") if linux => Table::Proc,
        _ if linux => Table::Proc,
        _ => Table::Ps,
    }
}

/// The reader of Linux's `/proc`. Compiled everywhere; it finds nothing
/// where there is no `/proc`.
mod procfs {
    use super::Process;
    use std::fs;

    /// The members of group `pgid` among the descendants of `root` (the
    /// pane's process), found through each task's `children` file: a few
    /// reads where the whole table is hundreds (a look at a pane that
    /// streams runs this every 100 ms). Where the kernel has no such file,
    /// or the group's leader is not among them (a job whose parent left),
    /// the whole table is read.
    pub(crate) fn read_group_under(root: u32, pgid: u32) -> Vec<Process> {
        // A shell that runs a command line leads the group itself.
        let mut members: Vec<Process> = read_process(root)
            .filter(|p| p.pgid == pgid)
            .into_iter()
            .collect();
        let mut next = vec![root];
        let mut seen = 0;
        while let Some(pid) = next.pop() {
            let Some(children) = children_of(pid) else {
                if pid == root {
                    return read_group(pgid);
                }
                // Gone while we looked.
                continue;
            };
            // A cycle cannot happen in a process tree; a bound all the same.
            seen += 1;
            if seen > 10_000 {
                break;
            }
            for child in children {
                if let Some(process) = read_process(child)
                    && process.pgid == pgid
                {
                    members.push(process);
                }
                next.push(child);
            }
        }
        if members.iter().any(|p| p.pid == pgid) {
            members
        } else {
            read_group(pgid)
        }
    }

    /// The children of every thread of `pid`; `None` where the kernel does
    /// not say (no `children` files) or the process has gone.
    pub(super) fn children_of(pid: u32) -> Option<Vec<u32>> {
        let mut children = Vec::new();
        for task in fs::read_dir(format!("/proc/{pid}/task")).ok()?.flatten() {
            let text = fs::read_to_string(task.path().join("children")).ok()?;
            children.extend(
                text.split_whitespace()
                    .filter_map(|n| n.parse::<u32>().ok()),
            );
        }
        Some(children)
    }

    pub(crate) fn read_group(pgid: u32) -> Vec<Process> {
        let mut members = Vec::new();
        let Ok(entries) = fs::read_dir("/proc") else {
            return members;
        };
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            // The cheap read first: most processes are in another group.
            let Some((_, rest)) = read_stat(pid) else {
                continue;
            };
            if stat_field(&rest, 2).and_then(|f| f.parse::<u32>().ok()) != Some(pgid) {
                continue;
            }
            if let Some(process) = read_process(pid) {
                members.push(process);
            }
        }
        members
    }

    /// `/proc/<pid>/stat`: the comm (between the first `(` and the last `)`)
    /// and the fields after it.
    fn read_stat(pid: u32) -> Option<(String, String)> {
        // Bytes: the kernel cuts a comm at 15 bytes, maybe inside a
        // character.
        let stat = fs::read(format!("/proc/{pid}/stat")).ok()?;
        let stat = String::from_utf8_lossy(&stat);
        let open = stat.find('(')?;
        let close = stat.rfind(')')?;
        Some((
            stat[open + 1..close].to_string(),
            stat[close + 1..].to_string(),
        ))
    }

    /// Field `n` after the comm: 0 state, 1 ppid, 2 pgrp, 3 session, 4 tty, 5 tpgid.
    fn stat_field(rest: &str, n: usize) -> Option<&str> {
        rest.split_whitespace().nth(n)
    }

    pub(crate) fn read_process(pid: u32) -> Option<Process> {
        let (comm, rest) = read_stat(pid)?;
        let cmdline = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let argv = cmdline
            .split(|&b| b == 0)
            .filter(|part| !part.is_empty())
            .map(|part| String::from_utf8_lossy(part).into_owned())
            .collect();
        Some(Process {
            pid,
            ppid: stat_field(&rest, 1)?.parse().ok()?,
            pgid: stat_field(&rest, 2)?.parse().ok()?,
            tpgid: stat_field(&rest, 5)?.parse().ok()?,
            comm,
            argv,
            stopped: matches!(stat_field(&rest, 0), Some("T") | Some("t")),
        })
    }
}

/// The reader that asks `ps`, on every system. Two calls: one for the
/// numbers and the command line (last, as it holds spaces), one for the
/// name (which can hold spaces too, `npm exec codex`). Arguments come
/// from the command line split at spaces, as `ps` joins them.
mod ps {
    use super::Process;
    use crate::exec::Program;
    use std::collections::HashMap;

    fn run(select: &[&str], columns: &str) -> Option<String> {
        let output = Program::new("ps")
            .args(select)
            .args(["-ww", "-o", columns])
            .output()
            .ok()?;
        Some(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    fn processes(select: &[&str]) -> Vec<Process> {
        let Some(numbers) = run(select, "pid=,ppid=,pgid=,tpgid=,stat=,args=") else {
            return Vec::new();
        };
        let names: HashMap<u32, String> = run(select, "pid=,comm=")
            .map(|text| text.lines().filter_map(parse_name).collect())
            .unwrap_or_default();
        numbers
            .lines()
            .filter_map(parse_numbers)
            .map(|mut process| {
                if let Some(name) = names.get(&process.pid) {
                    // macOS names the program by its path.
                    process.comm = name.rsplit('/').next().unwrap_or(name).to_string();
                }
                process
            })
            .collect()
    }

    pub(crate) fn read_process(pid: u32) -> Option<Process> {
        processes(&["-p", &pid.to_string()])
            .into_iter()
            .find(|p| p.pid == pid)
    }

    pub(crate) fn read_group(pgid: u32) -> Vec<Process> {
        processes(&["-A"])
            .into_iter()
            .filter(|p| p.pgid == pgid)
            .collect()
    }

    /// `  123 bash`: a pid and a name.
    fn parse_name(line: &str) -> Option<(u32, String)> {
        let line = line.trim_start();
        let (pid, name) = line.split_once(char::is_whitespace)?;
        Some((pid.parse().ok()?, name.trim().to_string()))
    }

    /// `pid ppid pgid tpgid stat args...`.
    pub(super) fn parse_numbers(line: &str) -> Option<Process> {
        let mut words = line.split_whitespace();
        let pid = words.next()?.parse().ok()?;
        let ppid = words.next()?.parse().ok()?;
        let pgid = words.next()?.parse().ok()?;
        let tpgid = words.next()?.parse().ok()?;
        let stat = words.next()?;
        let argv: Vec<String> = words.map(str::to_string).collect();
        let comm = argv
            .first()
            .map(|arg0| arg0.rsplit('/').next().unwrap_or(arg0).to_string())
            .unwrap_or_default();
        Some(Process {
            pid,
            ppid,
            pgid,
            tpgid,
            comm,
            argv,
            stopped: stat.starts_with('T'),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn a_group_is_found_among_the_descendants() {
        // A group of its own (a session): sh and the two sides of its
        // pipeline, which end by themselves.
        let line = "sleep 3 | sleep 4 # the group test";
        crate::exec::Program::new("sh")
            .args(["-c", line])
            .start_unwatched()
            .unwrap();
        let me = std::process::id();
        let mut members = Vec::new();
        for _ in 0..300 {
            let leader = procfs::children_of(me)
                .unwrap_or_default()
                .into_iter()
                .filter_map(read_process)
                .find(|p| p.argv.iter().any(|word| word == line));
            if let Some(leader) = leader {
                members = procfs::read_group_under(me, leader.pid);
                members.sort_by(|a, b| a.comm.cmp(&b.comm));
                // Forks may not have run `sleep` yet: read again.
                if members
                    .iter()
                    .map(|p| p.comm.as_str())
                    .eq(["sh", "sleep", "sleep"])
                {
                    return;
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        panic!("the group was not found: {members:?}");
    }

    fn proc(pid: u32, pgid: u32, comm: &str, argv: &[&str]) -> Process {
        Process {
            pid,
            ppid: 1,
            pgid,
            tpgid: pgid as i64,
            comm: comm.into(),
            argv: argv.iter().map(|a| a.to_string()).collect(),
            stopped: false,
        }
    }

    fn no_links(_: &str) -> Option<String> {
        None
    }

    fn id(members: &[Process]) -> Option<&'static str> {
        identify(members, &no_links).map(|found| found.agent.id)
    }

    #[test]
    fn agents_by_their_own_name() {
        assert_eq!(
            id(&[proc(
                10,
                10,
                "claude",
                &["claude", "--permission-mode", "default"]
            )]),
            Some("claude")
        );
        assert_eq!(
            id(&[proc(
                10,
                10,
                "codex",
                &["/usr/local/bin/codex", "--no-daemon"]
            )]),
            Some("codex")
        );
        assert_eq!(
            id(&[proc(10, 10, "cursor-agent", &["cursor-agent"])]),
            Some("cursor")
        );
    }

    #[test]
    fn runtimes_running_an_agent_script() {
        assert_eq!(
            id(&[proc(10, 10, "node", &["node", "/home/u/.npm/bin/codex"])]),
            Some("codex")
        );
        assert_eq!(
            id(&[proc(
                10,
                10,
                "node",
                &[
                    "node",
                    "--no-warnings",
                    "-r",
                    "x.js",
                    "/lib/node_modules/@anthropic-ai/claude-code/cli.js"
                ]
            )]),
            Some("claude")
        );
        assert_eq!(
            id(&[proc(
                10,
                10,
                "node",
                &[
                    "node",
                    "/usr/lib/node_modules/@google/gemini-cli/dist/index.js"
                ]
            )]),
            Some("gemini")
        );
        assert_eq!(
            id(&[proc(
                10,
                10,
                "node",
                &[
                    "node",
                    "/x/node_modules/@mariozechner/pi-coding-agent/dist/cli.js"
                ]
            )]),
            Some("pi")
        );
        assert_eq!(
            id(&[proc(10, 10, "bun", &["bun", "run", "/opt/amp"])]),
            Some("amp")
        );
        assert_eq!(
            id(&[proc(10, 10, "python3", &["python3", "/usr/bin/hermes"])]),
            Some("hermes")
        );
        assert_eq!(
            id(&[proc(10, 10, "sh", &["sh", "/home/u/bin/pi"])]),
            Some("pi")
        );
    }

    #[test]
    fn inline_code_and_option_values_are_no_script() {
        assert_eq!(
            id(&[proc(10, 10, "node", &["node", "-e", "require('claude')"])]),
            None
        );
        assert_eq!(
            id(&[proc(10, 10, "python3", &["python3", "-m", "codex"])]),
            None
        );
        assert_eq!(id(&[proc(10, 10, "bash", &["bash", "-c", "claude"])]), None);
        assert_eq!(
            id(&[proc(10, 10, "bash", &["bash", "-lc", "claude"])]),
            None
        );
        // --rcfile takes a value: that file is no script called claude.
        assert_eq!(
            id(&[proc(10, 10, "bash", &["bash", "--rcfile", "/d/bin/claude"])]),
            None
        );
        // -O takes an option's name; the script after it is claude.
        assert_eq!(
            id(&[proc(
                10,
                10,
                "bash",
                &["bash", "-O", "extglob", "/d/bin/claude"]
            )]),
            Some("claude")
        );
    }

    #[test]
    fn shells_pagers_editors_and_ssh_are_no_agent() {
        for (comm, argv) in [
            ("bash", vec!["-bash"]),
            ("zsh", vec!["zsh"]),
            ("less", vec!["less", "claude.txt"]),
            ("vim", vec!["vim", "codex.md"]),
            ("ssh", vec!["ssh", "host", "claude"]),
            ("cat", vec!["cat"]),
            ("nix", vec!["nix", "develop"]),
            ("sudo", vec!["sudo", "-s"]),
            ("tmux", vec!["tmux", "new", "claude"]),
        ] {
            assert_eq!(id(&[proc(10, 10, comm, &argv)]), None, "{argv:?}");
        }
    }

    #[test]
    fn containers_run_the_agent_their_arguments_start() {
        assert_eq!(
            id(&[proc(
                10,
                10,
                "docker",
                &[
                    "docker", "run", "-it", "--rm", "-v", "/w:/w", "img", "claude", "--resume"
                ]
            )]),
            Some("claude")
        );
        assert_eq!(id(&[proc(10, 10, "docker", &["docker", "ps"])]), None);
        // A folder given to an option is no program, whatever it is called.
        assert_eq!(
            id(&[proc(
                10,
                10,
                "podman",
                &[
                    "podman",
                    "run",
                    "-it",
                    "-v",
                    "/src/codex:/src/codex",
                    "-w",
                    "/src/codex",
                    "--name",
                    "pi",
                    "img",
                    "claude"
                ]
            )]),
            Some("claude")
        );
        let found = identify(
            &[proc(10, 10, "podman", &["podman", "run", "img", "gemini"])],
            &|_| None,
        )
        .unwrap();
        assert_eq!(found.runtime, Some("podman"));
        let plain = identify(&[proc(10, 10, "claude", &["claude"])], &|_| None).unwrap();
        assert_eq!(plain.runtime, None);
    }

    #[test]
    fn the_leader_wins_then_the_surest() {
        // npx (leader, no agent) starts node running codex: found through argv.
        let members = [
            proc(10, 10, "npm exec codex", &["npm exec codex"]),
            proc(
                11,
                10,
                "node",
                &[
                    "node",
                    "/cache/_npx/node_modules/@openai/codex/bin/codex.js",
                ],
            ),
        ];
        assert_eq!(id(&members), Some("codex"));
        let found = identify(&members, &no_links).unwrap();
        assert_eq!(found.pid, 11);
        // A leader that is an agent wins over a helper it runs.
        let members = [
            proc(10, 10, "claude", &["claude"]),
            proc(11, 10, "node", &["node", "/x/codex"]),
        ];
        assert_eq!(id(&members), Some("claude"));
    }

    #[test]
    fn links_are_followed() {
        let link =
            |word: &str| (word == "/usr/local/bin/c").then(|| "/opt/claude/bin/claude".to_string());
        let members = [proc(10, 10, "c", &["/usr/local/bin/c"])];
        assert_eq!(
            identify(&members, &link).map(|f| f.agent.id),
            Some("claude")
        );
    }

    #[test]
    fn front_tells_the_shell_from_a_job() {
        let mut shell = proc(5, 5, "bash", &["-bash"]);
        shell.tpgid = 5;
        assert_eq!(front_of(&shell, vec![]), Front::Shell);
        shell.tpgid = 10;
        let job = vec![
            proc(11, 10, "node", &["node"]),
            proc(10, 10, "claude", &["claude"]),
        ];
        match front_of(&shell, job) {
            Front::Job { pgid, members } => {
                assert_eq!(pgid, 10);
                assert_eq!(members[0].pid, 10, "leader first");
            }
            other => panic!("{other:?}"),
        }
        // A pane whose own process is the agent.
        let mut agent = proc(7, 7, "claude", &["claude"]);
        agent.tpgid = 7;
        assert!(matches!(
            front_of(&agent, vec![agent.clone()]),
            Front::Job { .. }
        ));
        shell.tpgid = -1;
        assert_eq!(front_of(&shell, vec![]), Front::Unknown);
        // A shell running a script as the pane's command is that script.
        let mut script = proc(8, 8, "sh", &["/bin/sh", "/home/u/bin/claude"]);
        script.tpgid = 8;
        assert!(matches!(front_of(&script, vec![]), Front::Job { .. }));
        // tmux starts a window's command as `sh -c COMMAND`: the job is the
        // group, the command its member.
        let mut runner = proc(9, 9, "sh", &["sh", "-c", "claude --resume x"]);
        runner.tpgid = 9;
        assert!(!is_interactive_shell(&runner));
        let child = proc(10, 9, "claude", &["claude", "--resume", "x"]);
        match front_of(&runner, vec![runner.clone(), child]) {
            Front::Job { members, .. } => {
                let found = identify(&members, &no_links).unwrap();
                assert_eq!((found.agent.id, found.pid), ("claude", 10));
            }
            other => panic!("{other:?}"),
        }
        assert!(is_interactive_shell(&proc(5, 5, "bash", &["-bash"])));
        assert!(is_interactive_shell(&proc(5, 5, "zsh", &["zsh", "-l"])));
    }

    #[test]
    fn the_table_is_proc_on_linux_unless_ps_is_asked() {
        assert_eq!(choose_table(true, None), Table::Proc);
        assert_eq!(choose_table(true, Some("ps")), Table::Ps);
        assert_eq!(choose_table(false, None), Table::Ps);
        assert_eq!(choose_table(false, Some("proc")), Table::Ps);
    }

    #[test]
    fn ps_lines_are_read() {
        let process = ps::parse_numbers("  42  1  42  42 Ss+ /bin/bash --login -i").unwrap();
        assert_eq!((process.pid, process.ppid, process.pgid), (42, 1, 42));
        assert_eq!(process.tpgid, 42);
        assert_eq!(process.argv, ["/bin/bash", "--login", "-i"]);
        assert_eq!(process.comm, "bash");
        assert!(!process.stopped);
        assert!(ps::parse_numbers("  7 1 7 -1 T sleep 9").unwrap().stopped);
        assert!(ps::parse_numbers("junk").is_none());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn both_readers_see_the_same_process() {
        let me = std::process::id();
        let from_proc = procfs::read_process(me).unwrap();
        let from_ps = ps::read_process(me).unwrap();
        assert_eq!(from_proc.pid, from_ps.pid);
        assert_eq!(from_proc.ppid, from_ps.ppid);
        assert_eq!(from_proc.pgid, from_ps.pgid);
        assert_eq!(from_proc.tpgid, from_ps.tpgid);
        assert_eq!(from_proc.comm, from_ps.comm);
        assert_eq!(from_proc.argv, from_ps.argv);
        let group: Vec<u32> = ps::read_group(from_proc.pgid)
            .iter()
            .map(|p| p.pid)
            .collect();
        assert!(group.contains(&me));
    }
}
