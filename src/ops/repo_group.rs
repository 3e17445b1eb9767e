//! A repository's group of sessions: which checkout a session runs (its
//! provenance, the session option a worktree verb writes), and the group
//! the session of a repository's main checkout heads, with the sessions of
//! its linked worktrees. Computed from a snapshot alone, for the worktree
//! verbs, `workspace::close` and the lists to share.

use crate::git::Repo;
use crate::tmux::snapshot::{Session, Snapshot};

use std::path::Path;

pub(crate) use crate::model::Provenance;

impl Provenance {
    pub(crate) fn of(repo: &Repo, checkout: &Path) -> Provenance {
        Provenance {
            repo_key: repo.key(),
            repo_name: repo.name(),
            repo_root: repo.root.display().to_string(),
            checkout_path: checkout.display().to_string(),
            is_linked_worktree: !crate::paths::same_place(checkout, &repo.root),
        }
    }
}

/// The worktree a session runs, if a worktree verb gave it one.
pub(crate) fn provenance(session: &Session) -> Option<Provenance> {
    serde_json::from_str(&session.worktree).ok()
}

/// The open worktree sessions of a repository's session (one that runs
/// the main checkout): those of the same repository on linked worktrees.
pub(crate) fn group_of(snapshot: &Snapshot, session: u32) -> Vec<u32> {
    let Some(own) = snapshot.session(session).and_then(provenance) else {
        return Vec::new();
    };
    if own.is_linked_worktree {
        return Vec::new();
    }
    snapshot
        .sessions
        .iter()
        .filter(|s| s.id != session)
        .filter(|s| {
            provenance(s).is_some_and(|p| p.is_linked_worktree && p.repo_key == own.repo_key)
        })
        .map(|s| s.id)
        .collect()
}

/// The repository's session a session is grouped under: itself when it
/// runs the main checkout, else the open one of its repository that does.
pub(crate) fn head_of(snapshot: &Snapshot, session: u32) -> Option<u32> {
    let own = snapshot.session(session).and_then(provenance)?;
    if !own.is_linked_worktree {
        return Some(session);
    }
    snapshot
        .sessions
        .iter()
        .find(|s| {
            provenance(s).is_some_and(|p| !p.is_linked_worktree && p.repo_key == own.repo_key)
        })
        .map(|s| s.id)
}

/// The sessions that head a repository's group: whose closed worktrees
/// the list shows.
pub(crate) fn heads(snapshot: &Snapshot) -> Vec<u32> {
    snapshot
        .sessions
        .iter()
        .filter(|s| head_of(snapshot, s.id) == Some(s.id))
        .map(|s| s.id)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provenance_is_herdrs_shape() {
        let p = Provenance {
            repo_key: "/src/api/.git".into(),
            repo_name: "api".into(),
            repo_root: "/src/api".into(),
            checkout_path: "/wt/api/feat-x".into(),
            is_linked_worktree: true,
        };
        let json = serde_json::to_value(&p).unwrap();
        assert_eq!(json["is_linked_worktree"], true);
        assert_eq!(json["checkout_path"], "/wt/api/feat-x");
        let session = Session {
            worktree: serde_json::to_string(&p).unwrap(),
            ..crate::tmux::snapshot::fixture::session(0, "api/feat-x")
        };
        assert_eq!(provenance(&session), Some(p));
    }
}
