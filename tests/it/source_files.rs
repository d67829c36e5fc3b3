//! `fslens::source_files` on a FIFO: refused at once, without waiting for a writer (the unit
//! tests in src/ may not start programs, and `mkfifo` is one; tests/it/architecture.rs).

use std::time::Duration;

#[test]
fn a_fifo_is_refused_without_waiting_for_a_writer() {
    let directory = tempfile::tempdir().unwrap();
    let fifo = directory.path().join("Pipe.fs");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    // On a thread, so that a read that waits for a writer fails the test instead of hanging it.
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(fslens::source_files::read_regular_text(&fifo).map_err(|error| error.kind()));
    });
    let result = receiver.recv_timeout(Duration::from_secs(10)).expect("the read of a FIFO returns at once");
    assert_eq!(result, Err(std::io::ErrorKind::InvalidInput));
}
