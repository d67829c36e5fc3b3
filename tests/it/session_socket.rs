//! The session socket: other clients join an editor's session; the socket is private.
//!
//! Two tests act as another user (`useradd` and `runuser`, `setpriv` to `nobody`), which needs
//! root: run as another user they fail and say so (CI runs as root; docs/testing.md says how to
//! leave them out).
#![allow(clippy::print_stderr)] // a timing goes to stderr

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use std::time::Duration;

use crate::support::double::Editor;
use fslens::commands::registry::Command as FslensCommand;
use fslens::lsp::codec::{FrameLimits, FrameReader, write_frame};
use serde_json::{Value, json};
use tokio::io::BufReader;
use tokio::process::Command;

const TIMEOUT: Duration = Duration::from_secs(20);

/// fslens in front of the echo backend, as an editor starts it: the real-binary [`Editor`],
/// which checks every request it sends is answered exactly once.
async fn start_editor(workspace: &Path, runtime: &Path) -> Editor {
    let echo = format!("node {}/tests/support/echo-backend.mjs", env!("CARGO_MANIFEST_DIR"));
    Editor::start(workspace, runtime, &echo, &[]).await
}

/// The result of `fslens.status`.
async fn editor_status(editor: &mut Editor) -> Value {
    editor.execute_result(FslensCommand::Status, json!({})).await
}

fn socket_for(workspace: &Path, runtime: &Path) -> PathBuf {
    fslens::session::socket_path(&runtime.join("fslens"), &workspace.canonicalize().unwrap())
}

async fn raw_client(
    socket: &Path,
) -> (FrameReader<BufReader<tokio::net::unix::OwnedReadHalf>>, tokio::net::unix::OwnedWriteHalf) {
    let stream = tokio::net::UnixStream::connect(socket).await.unwrap();
    let (reader, writer) = stream.into_split();
    (FrameReader::new(BufReader::new(reader), FrameLimits::default()), writer)
}

async fn client_call(
    client: &mut (FrameReader<BufReader<tokio::net::unix::OwnedReadHalf>>, tokio::net::unix::OwnedWriteHalf),
    id: &str,
    method: &str,
    params: Value,
) -> Value {
    let body = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).unwrap();
    write_frame(&mut client.1, &body).await.unwrap();
    loop {
        let body =
            tokio::time::timeout(TIMEOUT, client.0.read_frame()).await.unwrap().unwrap().expect("session closed");
        let message: Value = serde_json::from_slice(&body).unwrap();
        if message.get("method").is_none() && message["id"] == id {
            return message;
        }
    }
}

#[tokio::test]
async fn clients_join_the_editors_session_over_a_private_socket() {
    let workspace = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap();
    let mut editor = start_editor(workspace.path(), runtime.path()).await;
    let status = editor_status(&mut editor).await;
    let socket = socket_for(workspace.path(), runtime.path());
    assert_eq!(status["session"]["socket"], json!(socket.display().to_string()));
    let mode = |path: &Path| std::fs::symlink_metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(socket.parent().unwrap()), 0o700);
    assert_eq!(mode(&socket), 0o600);

    // A raw client: routed LSP requests answer under the client's own ids.
    let mut client = raw_client(&socket).await;
    let initialized = client_call(&mut client, "c1", "initialize", json!({})).await;
    assert_eq!(initialized["result"]["serverInfo"]["name"], json!("fslens-session"));
    let hover = client_call(&mut client, "c2", "textDocument/hover", json!({"k": 1})).await;
    assert_eq!(hover["result"], json!({"method": "textDocument/hover", "params": {"k": 1}}), "{hover}");
    let refused = client_call(&mut client, "c3", "textDocument/rename", json!({})).await;
    assert_eq!(refused["error"]["code"], json!(-32601), "clients may only read: {refused}");
    let status = client_call(&mut client, "c4", "workspace/executeCommand", json!({"command": "fslens.status"})).await;
    assert_eq!(status["result"]["session"]["clients"], json!(1));

    // The CLI joins the same session: same FSAC pid.
    let output = Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["status", "--json", "--timeout-ms", "300", "--workspace"])
        .arg(workspace.path())
        .env("XDG_RUNTIME_DIR", runtime.path())
        .env_remove("FSLENS_FSAC")
        .env("PATH", "/nonexistent")
        .output()
        .await
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let joined: Value = serde_json::from_slice(&output.stdout).unwrap();
    let editor_status = editor_status(&mut editor).await;
    assert_eq!(joined["fsac"]["pid"], editor_status["fsac"]["pid"]);
    assert!(joined["fsac"]["pid"].is_u64());
    drop(client);
    editor.stop().await;
    assert!(!socket.exists(), "the socket is removed when the session ends");
}

#[tokio::test]
async fn a_stale_socket_is_replaced() {
    let workspace = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap();
    let socket = socket_for(workspace.path(), runtime.path());
    fslens::session::ensure_private_directory(socket.parent().unwrap()).unwrap();
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap()); // leaves a dead socket file
    assert!(socket.exists());
    let mut editor = start_editor(workspace.path(), runtime.path()).await;
    assert_eq!(editor_status(&mut editor).await["session"]["socket"], json!(socket.display().to_string()));
    let mut client = raw_client(&socket).await;
    assert!(client_call(&mut client, "x", "initialize", json!({})).await["result"].is_object());
    editor.stop().await;
}

#[tokio::test]
async fn symlinked_or_group_writable_runtime_directories_are_refused() {
    for weakness in ["symlink", "group-writable"] {
        let workspace = tempfile::tempdir().unwrap();
        let runtime = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let directory = runtime.path().join("fslens");
        match weakness {
            "symlink" => {
                std::fs::set_permissions(elsewhere.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
                std::os::unix::fs::symlink(elsewhere.path(), &directory).unwrap();
            }
            _ => {
                std::fs::create_dir(&directory).unwrap();
                std::fs::set_permissions(&directory, std::fs::Permissions::from_mode(0o770)).unwrap();
            }
        }
        let mut editor = start_editor(workspace.path(), runtime.path()).await;
        assert_eq!(editor_status(&mut editor).await["session"]["socket"], Value::Null, "{weakness}: must not serve");
        assert_eq!(std::fs::read_dir(&directory).unwrap().count(), 0, "{weakness}: nothing created");
        let output = Command::new(env!("CARGO_BIN_EXE_fslens"))
            .args(["status", "--json", "--workspace"])
            .arg(workspace.path())
            .env("XDG_RUNTIME_DIR", runtime.path())
            .output()
            .await
            .unwrap();
        assert!(!output.status.success(), "{weakness}: joining must be refused");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("symbolic link") || stderr.contains("mode 770"), "{weakness}: {stderr}");
        editor.stop().await;
    }
}

/// Fails the test unless it runs as root, which it needs to `what`.
fn require_root(what: &str) {
    let uid = fslens::session::current_uid();
    assert_eq!(
        uid, 0,
        "this test needs root to {what} (running as uid {uid}); as another user, leave it out with \
         `cargo test --test it -- --skip session_socket::connections_from_another_user_are_refused \
         --skip session_socket::a_session_client_running_as_nobody_is_refused`"
    );
}

#[tokio::test]
async fn connections_from_another_user_are_refused() {
    require_root("create a second user and connect as it");
    let user = "fslens-peer-test";
    let exists =
        std::process::Command::new("id").arg(user).output().map(|output| output.status.success()).unwrap_or(false);
    if !exists {
        let created = std::process::Command::new("useradd")
            .args(["--no-create-home", "--shell", "/usr/sbin/nologin", user])
            .status();
        assert!(created.is_ok_and(|status| status.success()), "useradd could not create the test user {user}");
    }
    let workspace = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap();
    std::fs::set_permissions(runtime.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let editor = start_editor(workspace.path(), runtime.path()).await;
    let socket = socket_for(workspace.path(), runtime.path());
    open_socket_to_every_user(&socket);
    let output = std::process::Command::new("runuser")
        .args(["-u", user, "--", "python3", "-c", CONNECT_AND_SAY_SCRIPT])
        .arg(&socket)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("CLOSED"),
        "another uid got an answer: {stdout} {}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The session itself is unaffected, and root (this uid) still gets in.
    let mut client = raw_client(&socket).await;
    assert!(client_call(&mut client, "ok", "initialize", json!({})).await["result"].is_object());
    editor.stop().await;
}

/// A Python client that connects to the socket named by its argument, sends `initialize` and
/// prints `ANSWERED` if anything came back, `CLOSED` if nothing did (after `ERROR …` when the
/// connection itself failed).
const CONNECT_AND_SAY_SCRIPT: &str = r#"
import socket, sys, json
data = b""
try:
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}).encode()
    s.settimeout(5)
    s.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    data = s.recv(65536)
except OSError as error:
    print("ERROR", error)
print("ANSWERED" if data else "CLOSED")
"#;

/// Opens the file-system layer on purpose (the socket's directory searchable by all, the
/// socket writable by all), so that only the peer-uid check stands between another user and
/// the session.
fn open_socket_to_every_user(socket: &Path) {
    std::fs::set_permissions(socket.parent().unwrap(), std::fs::Permissions::from_mode(0o711)).unwrap();
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o666)).unwrap();
}

/// A client that connects as `nobody` (through `setpriv`) and says whether it got an answer.
fn connect_as_nobody(socket: &Path) -> String {
    let output = std::process::Command::new("setpriv")
        // The system's own interpreter: a per-user one (pyenv under /root) is not nobody's to run.
        .args([
            "--reuid=nobody",
            "--regid=nogroup",
            "--clear-groups",
            "--",
            "/usr/bin/python3",
            "-c",
            CONNECT_AND_SAY_SCRIPT,
        ])
        .arg(socket)
        .output()
        .unwrap();
    assert!(output.status.success(), "setpriv failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[tokio::test]
async fn a_session_client_running_as_nobody_is_refused() {
    require_root("run a client as nobody");
    let workspace = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap();
    std::fs::set_permissions(runtime.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut editor = start_editor(workspace.path(), runtime.path()).await;
    let socket = socket_for(workspace.path(), runtime.path());
    // As the socket is made, nobody cannot even reach it ...
    assert!(connect_as_nobody(&socket).contains("ERROR"), "the private directory let nobody through");
    // ... and with the file-system layer opened on purpose, the peer-uid check still refuses.
    open_socket_to_every_user(&socket);
    let answer = connect_as_nobody(&socket);
    assert!(answer.contains("CLOSED") && !answer.contains("ANSWERED"), "nobody got an answer: {answer}");
    assert_eq!(editor_status(&mut editor).await["session"]["clients"], json!(0), "nobody was never a client");
    let mut client = raw_client(&socket).await;
    assert!(client_call(&mut client, "ok", "initialize", json!({})).await["result"].is_object());
    editor.stop().await;
}

#[tokio::test]
async fn a_symbolic_link_planted_at_the_socket_path_is_neither_followed_nor_joined() {
    let workspace = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap();
    let decoy_directory = tempfile::tempdir().unwrap();
    let socket = socket_for(workspace.path(), runtime.path());
    fslens::session::ensure_private_directory(socket.parent().unwrap()).unwrap();
    // A live decoy socket elsewhere, linked from the session's path.
    let decoy = std::os::unix::net::UnixListener::bind(decoy_directory.path().join("decoy.sock")).unwrap();
    decoy.set_nonblocking(true).unwrap();
    std::os::unix::fs::symlink(decoy_directory.path().join("decoy.sock"), &socket).unwrap();

    // A client does not join through the link (one that did would wait on the decoy forever).
    let output = Command::new(env!("CARGO_BIN_EXE_fslens"))
        .args(["status", "--json", "--timeout-ms", "300", "--workspace"])
        .arg(workspace.path())
        .env("XDG_RUNTIME_DIR", runtime.path())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(TIMEOUT, output).await.expect("the CLI joined the decoy and waits").unwrap();
    assert!(!output.status.success(), "the CLI joined through a planted link");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("is a symbolic link, not a socket"), "{stderr}");
    assert!(decoy.accept().is_err(), "the decoy was connected to");

    // A session removes the link and serves a socket of its own there.
    let mut editor = start_editor(workspace.path(), runtime.path()).await;
    assert_eq!(editor_status(&mut editor).await["session"]["socket"], json!(socket.display().to_string()));
    assert!(!std::fs::symlink_metadata(&socket).unwrap().file_type().is_symlink());
    let mut client = raw_client(&socket).await;
    let joined = client_call(&mut client, "x", "initialize", json!({})).await;
    assert_eq!(joined["result"]["serverInfo"]["name"], json!("fslens-session"));
    assert!(decoy.accept().is_err(), "the decoy was connected to");
    editor.stop().await;
}

#[tokio::test]
async fn the_socket_of_a_killed_session_is_taken_over_cleanly() {
    let workspace = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap();
    let socket = socket_for(workspace.path(), runtime.path());
    let mut first = start_editor(workspace.path(), runtime.path()).await;
    assert_eq!(editor_status(&mut first).await["session"]["socket"], json!(socket.display().to_string()));
    first.kill().await; // SIGKILL: nothing is cleaned up
    assert!(socket.exists(), "a killed session leaves its socket behind");

    let mut second = start_editor(workspace.path(), runtime.path()).await;
    let status = editor_status(&mut second).await;
    assert_eq!(status["session"]["socket"], json!(socket.display().to_string()), "{status}");
    assert_eq!(status["session"]["notShared"], Value::Null);
    let mut client = raw_client(&socket).await;
    let joined = client_call(&mut client, "s", "workspace/executeCommand", json!({"command": "fslens.status"})).await;
    assert_eq!(joined["result"]["fsac"]["pid"], status["fsac"]["pid"], "the client joined the new session");
    second.stop().await;
}

#[tokio::test]
async fn a_second_session_for_one_workspace_says_why_it_does_not_share_and_takes_over_when_the_first_ends() {
    let workspace = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap();
    let socket = socket_for(workspace.path(), runtime.path());
    let mut first = start_editor(workspace.path(), runtime.path()).await;
    let first_status = editor_status(&mut first).await;
    let mut second = start_editor(workspace.path(), runtime.path()).await;
    let second_status = editor_status(&mut second).await;
    assert_eq!(second_status["session"]["socket"], Value::Null);
    let reason = second_status["session"]["notShared"].as_str().unwrap_or_default();
    assert!(reason.contains("another fslens session already serves this workspace"), "{second_status}");
    let mut client = raw_client(&socket).await;
    let joined = client_call(&mut client, "a", "workspace/executeCommand", json!({"command": "fslens.status"})).await;
    assert_eq!(joined["result"]["fsac"]["pid"], first_status["fsac"]["pid"], "clients join the first session");
    drop(client);

    first.stop().await;
    let deadline = std::time::Instant::now() + TIMEOUT;
    loop {
        let status = editor_status(&mut second).await;
        if status["session"]["socket"] == json!(socket.display().to_string()) {
            assert_eq!(status["session"]["notShared"], Value::Null);
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the second session never took the socket over: {status}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let mut client = raw_client(&socket).await;
    let joined = client_call(&mut client, "b", "workspace/executeCommand", json!({"command": "fslens.status"})).await;
    assert_eq!(joined["result"]["fsac"]["pid"], second_status["fsac"]["pid"], "clients now join the second session");
    second.stop().await;
}

/// A session that accepts the connection and never answers (stopped, deadlocked) fails the
/// CLI with a reason within seconds; before, `fslens status` waited forever.
#[tokio::test]
async fn a_joined_session_that_never_answers_fails_the_cli_with_a_reason() {
    let workspace = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap();
    let socket = socket_for(workspace.path(), runtime.path());
    let directory = socket.parent().unwrap().to_owned();
    std::fs::create_dir_all(&directory).unwrap();
    std::fs::set_permissions(&directory, std::fs::Permissions::from_mode(0o700)).unwrap();
    let listener = tokio::net::UnixListener::bind(&socket).unwrap();
    // Accept every connection and hold it open without a word.
    let hung = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    let started = std::time::Instant::now();
    let output = tokio::time::timeout(
        Duration::from_secs(60),
        Command::new(env!("CARGO_BIN_EXE_fslens"))
            .args(["status", "--timeout-ms", "1000", "--workspace"])
            .arg(workspace.path())
            .env("XDG_RUNTIME_DIR", runtime.path())
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the CLI must not wait forever on a hung session")
    .unwrap();
    hung.abort();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "a hung session is a failure: {stderr}");
    assert!(stderr.contains("did not answer initialize"), "{stderr}");
    eprintln!("the CLI gave up on the hung session after {:?}", started.elapsed());
}
