// Whether a process id is alive (a process we may not signal still is): used by the scripts in
// bin/ that tidy up after runs whose process is gone.
export function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}
