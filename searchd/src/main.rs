//! The `searchd` binary: see `searchd --help`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};

/// Search over a crawl: HTML pages, a JSON API, cached copies; or the whole pipeline as a demo.
#[derive(Parser)]
#[command(name = "searchd", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    log: shared::logging::LogArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Serve search over DIR/index (or every partition's shard under DIR/partitions) and any
    /// remote leaves; a new index generation is picked up without a restart.
    Serve {
        /// The data directory of a crawl (DIR/store, DIR/index, or DIR/partitions/p-NNN).
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
        /// A remote `searchd leaf` to search beside the local shards (repeatable), or
        /// replicas of the same shards as URL1|URL2: each call goes to the replica with the
        /// fewest calls outstanding, fails over to another, and is hedged after the
        /// replica's recent p95. A group none of whose replicas answers in time leaves the
        /// answer partial.
        #[arg(long = "leaf", value_name = "URL[|URL...]")]
        leaves: Vec<String>,
        /// Address to listen on [default: the config's searchd.listen, 127.0.0.1:8080].
        #[arg(long, value_name = "ADDR")]
        listen: Option<SocketAddr>,
        /// A TOML config file (see data/example.toml).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// Serve the index shards of DIR to a remote root (`searchd serve --leaf URL`).
    Leaf {
        /// The data directory (DIR/index, or DIR/partitions/p-NNN with their shards).
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
        /// Address to listen on.
        #[arg(long, value_name = "ADDR")]
        listen: SocketAddr,
        /// A TOML config file (see data/example.toml).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// Crawl the local Rust documentation (or --docs DIR), index it and serve search.
    Demo {
        /// Address to serve search on.
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
        listen: SocketAddr,
        /// A directory of HTML to crawl instead of the Rust documentation.
        #[arg(long, value_name = "DIR")]
        docs: Option<PathBuf>,
        /// Where the crawl and index are kept; a second run reuses them.
        #[arg(long, value_name = "DIR", default_value = "sift-demo")]
        data: PathBuf,
    },
    /// Measure relevance: run a judged query set (TOML) through a running server's
    /// /api/search, with our ranking and a plain BM25 baseline, and print MRR@10, nDCG@10
    /// and recall@10, over all queries and over each half (tuning, held-out).
    Eval {
        /// The server, e.g. http://127.0.0.1:8080.
        #[arg(long, value_name = "URL")]
        url: String,
        /// The judged queries (see bench/relevance/judgments.toml).
        #[arg(long, value_name = "FILE")]
        judgments: PathBuf,
        /// Another engine's results to score beside ours (repeatable): FILE holds one line
        /// per result, `QUERY<TAB>PATH`, each query's results best first, paths under the
        /// site's root as in the judged set.
        #[arg(long = "runs", value_name = "NAME=FILE", value_parser = runs_arg)]
        runs: Vec<(String, PathBuf)>,
    },
    /// Read one PDF on stdin and write its text as one answer frame on stdout: the child
    /// process `searchd demo`'s crawler runs this binary as for each PDF (see the demo).
    #[command(hide = true)]
    PdfText,
}

async fn serve(
    data: PathBuf,
    leaves: Vec<String>,
    listen: Option<SocketAddr>,
    config: Option<PathBuf>,
) -> anyhow::Result<()> {
    let config = shared::Config::load(config.as_deref())?;
    let listen = listen.unwrap_or(config.searchd.listen);
    if leaves.is_empty() && !holds_a_crawl(&data)? {
        bail!(
            "{} holds no crawl and no index: run `crawler crawl --data {0}` and `indexer build --data {0}` first",
            data.display()
        );
    }
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("cannot listen on {listen}"))?;
    println!(
        "searchd: serving {} at {}://{}/",
        data.display(),
        scheme(&config),
        listener.local_addr()?
    );
    gateway::serve_root(
        listener,
        data,
        leaves,
        config,
        service::shutdown::requested(),
    )
    .await?;
    Ok(())
}

/// Whether `data` holds a store or an index, or partitions.
fn holds_a_crawl(data: &std::path::Path) -> anyhow::Result<bool> {
    Ok(shared::store::store_dir(data).is_dir()
        || index_format::current_generation(data)?.is_some()
        || !shared::partition::local_partitions(data)?.is_empty())
}

/// `https` when `[searchd]` names a certificate, else `http`.
fn scheme(config: &shared::Config) -> &'static str {
    if config.searchd.tls.is_some() {
        "https"
    } else {
        "http"
    }
}

/// `searchd leaf`: this directory's shards, to a remote root.
async fn leaf(data: PathBuf, listen: SocketAddr, config: Option<PathBuf>) -> anyhow::Result<()> {
    let config = shared::Config::load(config.as_deref())?;
    if !holds_a_crawl(&data)? {
        bail!(
            "{} holds no crawl and no index: nothing to serve",
            data.display()
        );
    }
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("cannot listen on {listen}"))?;
    println!(
        "searchd: leaf serving {} at {}://{}/leaf/",
        data.display(),
        scheme(&config),
        listener.local_addr()?
    );
    gateway::serve_leaf(listener, data, config, service::shutdown::requested()).await?;
    Ok(())
}

/// `--runs NAME=FILE`, checked.
fn runs_arg(arg: &str) -> Result<(String, PathBuf), String> {
    searchd::eval::parse_runs_arg(arg).map_err(|error| error.to_string())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Command::PdfText = cli.command {
        // The PDF child: no runtime, no logging, nothing but the answer on stdout.
        return match searchd::demo::pdf_child() {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("searchd: cannot write the PDF answer: {error}");
                ExitCode::FAILURE
            }
        };
    }
    shared::logging::init(cli.log.log_format);
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("searchd: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async {
        match cli.command {
            Command::Serve {
                data,
                leaves,
                listen,
                config,
            } => serve(data, leaves, listen, config).await,
            Command::Leaf {
                data,
                listen,
                config,
            } => leaf(data, listen, config).await,
            Command::Demo { listen, docs, data } => {
                let options = searchd::demo::DemoOptions { listen, docs, data };
                searchd::demo::run(options, service::shutdown::requested()).await
            }
            Command::Eval {
                url,
                judgments,
                runs,
            } => {
                let judgments = searchd::eval::load(&judgments)?;
                let runs = runs
                    .iter()
                    .map(|(name, file)| searchd::eval::load_runs(name, file, &judgments))
                    .collect::<anyhow::Result<Vec<_>>>()?;
                let mut out = shared::report_out::ReportOut::new(std::io::stdout());
                searchd::eval::run(&url, &judgments, &runs, &mut out)
                    .await
                    .map(|_| ())
            }
            // Answered before the runtime started.
            Command::PdfText => Ok(()),
        }
    });
    // An index build interrupted by Ctrl-C runs on a blocking thread: do not wait for it
    // (the build lock and the generation switch make stopping it safe).
    runtime.shutdown_timeout(Duration::from_secs(1));
    shared::logging::exit_code("searchd", outcome, &mut std::io::stderr())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `searchd serve` with the config file `text`: the line the binary prints, checked to be
    /// one line, with a failure exit code.
    async fn failed_serve(text: Option<&str>) -> (String, PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = dir.path().join("searchd.toml");
        if let Some(text) = text {
            std::fs::write(&config, text).expect("config written");
        }
        let outcome = serve(
            dir.path().to_path_buf(),
            Vec::new(),
            None,
            Some(config.clone()),
        )
        .await;
        let mut stderr = Vec::new();
        let code = shared::logging::exit_code("searchd", outcome, &mut stderr);
        assert_eq!(code, ExitCode::FAILURE);
        let line = String::from_utf8(stderr).expect("UTF-8");
        assert_eq!(line.lines().count(), 1, "{line}");
        (line, config)
    }

    #[test]
    fn serve_takes_leaves_and_leaf_takes_an_address() {
        let cli = Cli::try_parse_from([
            "searchd",
            "serve",
            "--data",
            "d",
            "--leaf",
            "http://a:1",
            "--leaf",
            "http://b:2|http://c:3",
        ])
        .expect("serve parses");
        let Command::Serve { leaves, .. } = cli.command else {
            panic!("not serve");
        };
        assert_eq!(leaves, ["http://a:1", "http://b:2|http://c:3"]);
        let cli =
            Cli::try_parse_from(["searchd", "leaf", "--data", "d", "--listen", "127.0.0.1:9"])
                .expect("leaf parses");
        assert!(matches!(cli.command, Command::Leaf { .. }));
        assert!(
            Cli::try_parse_from(["searchd", "leaf", "--data", "d"]).is_err(),
            "--listen is needed"
        );
    }

    #[test]
    fn pdf_text_is_a_subcommand_that_help_does_not_list() {
        let cli = Cli::try_parse_from(["searchd", "pdf-text"]).expect("parses");
        assert!(matches!(cli.command, Command::PdfText));
        let help = <Cli as clap::CommandFactory>::command()
            .render_help()
            .to_string();
        assert!(help.contains("demo") && !help.contains("pdf"), "{help}");
    }

    /// `serve` as a root of `leaf` on a free port, which must fail: its one line.
    async fn failed_root(data: &std::path::Path, leaf: &str, config: Option<PathBuf>) -> String {
        let listen = Some("127.0.0.1:0".parse().expect("address"));
        let outcome = serve(data.to_path_buf(), vec![leaf.into()], listen, config).await;
        let mut stderr = Vec::new();
        let code = shared::logging::exit_code("searchd", outcome, &mut stderr);
        assert_eq!(code, ExitCode::FAILURE);
        let line = String::from_utf8(stderr).expect("UTF-8");
        assert_eq!(line.lines().count(), 1, "{line}");
        line
    }

    #[tokio::test]
    async fn a_bad_leaf_address_stops_serve_in_one_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let line = failed_root(dir.path(), "ftp://x", None).await;
        assert!(
            line.contains("not an http:// or https:// address"),
            "{line}"
        );
        // A group of replicas: each address checked, none left empty.
        let line = failed_root(dir.path(), "http://127.0.0.1:9|ftp://x", None).await;
        assert!(line.contains("leaf \"ftp://x\": not an http://"), "{line}");
        let line = failed_root(dir.path(), "http://127.0.0.1:9|", None).await;
        assert!(line.contains("an empty replica address"), "{line}");
    }

    #[tokio::test]
    async fn a_refused_synonyms_file_stops_serve_in_one_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let synonyms = dir.path().join("synonyms.txt");
        std::fs::write(&synonyms, "tls, ssl\nssl, https\n").expect("written");
        let config = dir.path().join("searchd.toml");
        let text = format!(
            "[searchd]\nsynonyms = {:?}\n",
            synonyms.display().to_string()
        );
        std::fs::write(&config, text).expect("written");
        // A root of a leaf (none answers here) needs no index of its own to start.
        let line = failed_root(dir.path(), "http://127.0.0.1:9", Some(config)).await;
        assert!(
            line.contains(&format!(
                "synonyms file {}: line 2: \"ssl\" is in the group of line 1 too",
                synonyms.display()
            )),
            "{line}"
        );
    }

    #[tokio::test]
    async fn a_weak_leaf_token_stops_serve_in_one_line_without_the_token() {
        let dir = tempfile::tempdir().expect("tempdir");
        let token = dir.path().join("leaf-token");
        std::fs::write(&token, "hunter2\n").expect("written");
        let config = dir.path().join("searchd.toml");
        let text = format!(
            "[searchd]\nleaf_token_file = {:?}\n",
            token.display().to_string()
        );
        std::fs::write(&config, text).expect("written");
        let line = failed_root(dir.path(), "http://127.0.0.1:9", Some(config)).await;
        assert!(
            line.contains(&format!("leaf token file {}: ", token.display()))
                && line.contains("shorter than 16 bytes")
                && !line.contains("hunter2"),
            "{line}"
        );
    }

    #[tokio::test]
    async fn config_errors_stop_serve_in_one_line() {
        let (line, config) = failed_serve(None).await;
        assert!(
            line.starts_with(&format!(
                "searchd: cannot read config {}: ",
                config.display()
            )),
            "{line}"
        );
        let (line, config) = failed_serve(Some("[searchd]\nlisten = \"localhost\"\n")).await;
        assert!(
            line.starts_with(&format!(
                "searchd: config {}: searchd.listen: \"localhost\" is not an address",
                config.display()
            )),
            "{line}"
        );
        let (line, _) = failed_serve(Some("[searchd]\nlisten_on = 1\n")).await;
        assert!(
            line.contains(
                "line 2: searchd.listen_on: unknown key `listen_on` (did you mean `listen`?)"
            ),
            "{line}"
        );
    }
}
