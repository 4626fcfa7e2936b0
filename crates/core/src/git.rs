//! Reading git metadata into lesson context. The store runs `git`; this module decides what its
//! answers mean.

use serde::{Deserialize, Serialize};

use crate::lesson::{LessonContext, Platform};

/// Where in git a lesson happened: the facts about a working folder, as `git` reports them or
/// the agent passes them. Declared once: a lesson's context flattens it into its JSON.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GitContext {
    pub project: Option<String>,
    pub repository: Option<String>,
    pub branch: Option<String>,
    pub commit_hash: Option<String>,
    pub folder: Option<String>,
    pub repository_platform: Option<Platform>,
}

/// What `git` printed (trimmed; `None` when the command failed or printed nothing).
#[derive(Debug, Clone, Default)]
pub struct GitAnswers {
    pub branch: Option<String>,
    pub commit: Option<String>,
    pub remote: Option<String>,
}

impl GitContext {
    /// Builds the context for `folder` from git's answers. A detached HEAD has no branch; without
    /// a remote the project is the folder's name.
    pub fn from_answers(folder: &str, answers: GitAnswers) -> Self {
        let remote = answers.remote.as_deref().map(parse_remote);
        let (repository, repository_platform) = match remote {
            Some(r) => (Some(r.repository), Some(r.platform)),
            None => (None, None),
        };
        let project = match &repository {
            Some(repo) => repo.trim_end_matches('/').rsplit('/').next().filter(|s| !s.is_empty()).map(str::to_owned),
            None => folder_name(folder),
        };
        Self {
            project,
            repository,
            branch: answers.branch.filter(|b| b != "HEAD"),
            commit_hash: answers.commit,
            folder: (!folder.is_empty()).then(|| folder.to_owned()),
            repository_platform,
        }
    }
}

fn folder_name(folder: &str) -> Option<String> {
    folder.trim_end_matches(['/', '\\']).rsplit(['/', '\\']).next().filter(|s| !s.is_empty()).map(str::to_owned)
}

/// A remote URL read as `org/repo` on a platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remote {
    pub repository: String,
    pub platform: Platform,
}

/// Reads `git@host:org/repo.git`, `ssh://git@host/org/repo.git` and `https://host/org/repo(.git)`.
/// Credentials in the URL are dropped. Anything else is kept as-is on the `local` platform.
pub fn parse_remote(remote: &str) -> Remote {
    let remote = remote.trim();
    let split = if let Some(rest) = remote.strip_prefix("git@") {
        rest.split_once(':')
    } else if let Some(rest) = strip_scheme(remote) {
        rest.split_once('/')
    } else {
        None
    };
    match split {
        Some((host, path)) if !host.is_empty() && !path.trim_end_matches(".git").is_empty() => {
            let host = host.rsplit('@').next().unwrap_or(host);
            let host = host.split(':').next().unwrap_or(host).to_ascii_lowercase();
            let path = path.strip_suffix(".git").unwrap_or(path);
            Remote { repository: path.to_owned(), platform: platform_of(&host) }
        }
        _ => Remote { repository: remote.to_owned(), platform: Platform::Local },
    }
}

/// The web page of a commit on a hosted platform (`owner/repo` + hash), when there is one.
pub fn commit_url(platform: Platform, repository: &str, hash: &str) -> Option<String> {
    let safe = |s: &str| {
        !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c)) && !s.contains("..")
    };
    let hash = hash.trim();
    if !safe(repository) || !hash.chars().all(|c| c.is_ascii_hexdigit()) || hash.len() < 7 {
        return None;
    }
    Some(match platform {
        Platform::Github => format!("https://github.com/{repository}/commit/{hash}"),
        Platform::Gitlab => format!("https://gitlab.com/{repository}/-/commit/{hash}"),
        Platform::Bitbucket => format!("https://bitbucket.org/{repository}/commits/{hash}"),
        Platform::Local => return None,
    })
}

fn strip_scheme(url: &str) -> Option<&str> {
    ["https://", "http://", "ssh://"]
        .iter()
        .find_map(|p| url.get(..p.len()).filter(|head| head.eq_ignore_ascii_case(p)).map(|_| &url[p.len()..]))
}

fn platform_of(host: &str) -> Platform {
    match host {
        "github.com" => Platform::Github,
        "gitlab.com" => Platform::Gitlab,
        "bitbucket.org" => Platform::Bitbucket,
        _ => Platform::Local,
    }
}

/// The most-used values among the learner's own lessons, the fallback when neither the agent nor
/// git says where a lesson happened.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UsageDefaults {
    pub project: Option<String>,
    pub repository: Option<String>,
    pub branch: Option<String>,
    pub repository_platform: Option<Platform>,
}

/// Fills a lesson's context field by field: what the agent passed, else git, else the usage
/// default (`project`, `repository`, `branch`, platform only), else nothing.
pub fn resolve_context(given: LessonContext, git: &GitContext, usage: &UsageDefaults) -> LessonContext {
    fn pick(given: Option<String>, git: Option<&String>, usage: Option<&String>) -> Option<String> {
        given.or_else(|| git.cloned()).or_else(|| usage.cloned())
    }
    let given_git = given.git;
    LessonContext {
        task_context: given.task_context,
        git: GitContext {
            project: pick(given_git.project, git.project.as_ref(), usage.project.as_ref()),
            repository: pick(given_git.repository, git.repository.as_ref(), usage.repository.as_ref()),
            branch: pick(given_git.branch, git.branch.as_ref(), usage.branch.as_ref()),
            commit_hash: pick(given_git.commit_hash, git.commit_hash.as_ref(), None),
            folder: pick(given_git.folder, git.folder.as_ref(), None),
            repository_platform: given_git
                .repository_platform
                .or(git.repository_platform)
                .or(usage.repository_platform),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn remote(url: &str, repo: &str, platform: Platform) {
        assert_eq!(parse_remote(url), Remote { repository: repo.into(), platform }, "{url}");
    }

    #[test]
    fn remotes() {
        remote("git@github.com:acme/widgets.git", "acme/widgets", Platform::Github);
        remote("git@GitHub.com:acme/widgets", "acme/widgets", Platform::Github);
        remote("git@git.internal:acme/widgets.git", "acme/widgets", Platform::Local);
        remote("https://gitlab.com/group/sub/proj.git", "group/sub/proj", Platform::Gitlab);
        remote("https://bitbucket.org/team/repo", "team/repo", Platform::Bitbucket);
        remote("https://example.com/team/repo.git", "team/repo", Platform::Local);
        remote("https://ci-token:s3cret@github.com/acme/widgets.git", "acme/widgets", Platform::Github);
        remote("ssh://git@github.com:22/acme/widgets.git", "acme/widgets", Platform::Github);
        remote("/srv/git/widgets.git", "/srv/git/widgets.git", Platform::Local);
        remote("https://github.com", "https://github.com", Platform::Local);
    }

    #[test]
    fn context_from_answers() {
        let ctx = GitContext::from_answers(
            "/home/dev/widgets",
            GitAnswers {
                branch: Some("main".into()),
                commit: Some("abc".into()),
                remote: Some("git@github.com:acme/widgets.git".into()),
            },
        );
        assert_eq!(ctx.project.as_deref(), Some("widgets"));
        assert_eq!(ctx.repository.as_deref(), Some("acme/widgets"));
        assert_eq!(ctx.repository_platform, Some(Platform::Github));
        assert_eq!(ctx.folder.as_deref(), Some("/home/dev/widgets"));

        let detached = GitContext::from_answers(
            "/tmp/scratch/",
            GitAnswers { branch: Some("HEAD".into()), ..GitAnswers::default() },
        );
        assert_eq!(detached.branch, None);
        assert_eq!(detached.project.as_deref(), Some("scratch"));
        assert_eq!(detached.repository_platform, None);
    }

    #[test]
    fn context_fallback_chain() {
        let git =
            GitContext { branch: Some("feature".into()), commit_hash: Some("c1".into()), ..GitContext::default() };
        let usage = UsageDefaults {
            project: Some("usual".into()),
            branch: Some("main".into()),
            repository_platform: Some(Platform::Github),
            ..UsageDefaults::default()
        };
        let given = LessonContext {
            git: GitContext { project: Some("explicit".into()), ..GitContext::default() },
            ..LessonContext::default()
        };
        let ctx = resolve_context(given, &git, &usage).git;
        assert_eq!(ctx.project.as_deref(), Some("explicit"));
        assert_eq!(ctx.branch.as_deref(), Some("feature"));
        assert_eq!(ctx.commit_hash.as_deref(), Some("c1"));
        assert_eq!(ctx.repository_platform, Some(Platform::Github));
        assert_eq!(ctx.repository, None);
        assert_eq!(ctx.folder, None);
    }

    #[test]
    fn commit_pages() {
        let h = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(
            commit_url(Platform::Github, "me/app", h).as_deref(),
            Some(&*format!("https://github.com/me/app/commit/{h}"))
        );
        assert_eq!(
            commit_url(Platform::Gitlab, "g/sub/app", h).as_deref(),
            Some(&*format!("https://gitlab.com/g/sub/app/-/commit/{h}"))
        );
        assert_eq!(
            commit_url(Platform::Bitbucket, "t/app", "abc1234").as_deref(),
            Some("https://bitbucket.org/t/app/commits/abc1234")
        );
        assert_eq!(commit_url(Platform::Local, "me/app", h), None);
        assert_eq!(commit_url(Platform::Github, "me/app\"evil", h), None);
        assert_eq!(commit_url(Platform::Github, "../x", h), None);
        assert_eq!(commit_url(Platform::Github, "me/app", "not-a-hash"), None);
    }
}
