// harness/isolate.cpp -- see isolate.hpp.
#include "isolate.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace dsv4::harness {

bool write_all(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

ChildResult run_in_child(const std::function<int(int fd)>& body, double timeout_s) {
  ChildResult r;
  int fds[2];
  if (pipe(fds) != 0) {
    r.end = ChildResult::End::ForkFailed;
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    r.end = ChildResult::End::ForkFailed;
    r.error = std::string("fork: ") + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return r;
  }
  if (pid == 0) {
    close(fds[0]);
    int rc = 3;
    try {
      rc = body(fds[1]);
    } catch (...) {
      rc = 3;
    }
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(rc);
  }
  close(fds[1]);
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  bool timed_out = false, eof = false;
  char buf[65536];
  while (!eof) {
    int wait_ms = -1;
    if (timeout_s > 0) {
      const double left = timeout_s - elapsed();
      if (left <= 0) { timed_out = true; break; }
      wait_ms = int(left * 1000) + 1;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int n = poll(&p, 1, wait_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    if (n == 0) continue;  // deadline re-checked at the top
    const ssize_t got = read(fds[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) eof = true;
    else r.output.append(buf, size_t(got));
  }
  // EOF only means the pipe closed: the child may still be running (it could close the fd and
  // spin), so the deadline also applies to its exit.
  int status = 0;
  while (!timed_out) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (timeout_s > 0 && elapsed() >= timeout_s) { timed_out = true; break; }
    usleep(2000);
  }
  if (timed_out) {
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    r.end = ChildResult::End::TimedOut;
  } else if (WIFSIGNALED(status)) {
    r.end = ChildResult::End::Signaled;
    r.signal = WTERMSIG(status);
  } else {
    r.end = ChildResult::End::Exited;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  close(fds[0]);
  r.seconds = elapsed();
  return r;
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    case SIGPIPE: return "SIGPIPE";
    default: return "signal " + std::to_string(sig);
  }
}

std::string describe_child_end(const ChildResult& r, double timeout_s) {
  switch (r.end) {
    case ChildResult::End::Signaled: return "implementation crashed with " + signal_name(r.signal);
    case ChildResult::End::TimedOut: {
      std::ostringstream o;
      o << "hung for more than " << timeout_s << " s, killed";
      return o.str();
    }
    case ChildResult::End::ForkFailed: return "could not start a child process: " + r.error;
    case ChildResult::End::Exited: break;
  }
  return "child exited with status " + std::to_string(r.exit_code) + " without a complete answer";
}

std::string poisoned_context_line(const std::string& backend_error) {
  const size_t p = backend_error.rfind(": ");
  return "CUDA context poisoned: " + (p == std::string::npos ? backend_error : backend_error.substr(p + 2));
}

std::string frame_fields(const std::vector<std::string>& fields) {
  std::string s;
  for (const std::string& f : fields) s += std::to_string(f.size()) + ":" + f;
  return s;
}

bool unframe_fields(const std::string& record, std::vector<std::string>* fields) {
  fields->clear();
  size_t i = 0;
  while (i < record.size()) {
    const size_t colon = record.find(':', i);
    if (colon == std::string::npos || colon == i || colon - i > 12) return false;
    size_t len = 0;
    for (size_t j = i; j < colon; ++j) {
      if (record[j] < '0' || record[j] > '9') return false;
      len = len * 10 + size_t(record[j] - '0');
    }
    if (len > record.size() - colon - 1) return false;
    fields->push_back(record.substr(colon + 1, len));
    i = colon + 1 + len;
  }
  return true;
}

}  // namespace dsv4::harness
