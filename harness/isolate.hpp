// harness/isolate.hpp -- run a piece of work in a forked child process with a time limit, so an
// implementation that crashes (a signal), poisons its CUDA context or hangs cannot take the caller
// down with it. Used by `dsv4-harness repro --isolate` (one fresh process per case file).
//
// CHOICE: plain fork() (no exec). The caller must not have initialized CUDA itself (a CUDA context
// does not survive fork): the repro front end loads the implementation only inside children.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace dsv4::harness {

struct ChildResult {
  enum class End { Exited, Signaled, TimedOut, ForkFailed };
  End end = End::Exited;
  int exit_code = 0;     // End::Exited
  int signal = 0;        // End::Signaled
  std::string output;    // every byte the child wrote to its pipe (possibly partial)
  double seconds = 0;    // wall time until the child ended or was killed
  std::string error;     // End::ForkFailed: why
};

// Forks; the child runs body(fd) (fd = write end of a pipe to the parent) and _exit()s with its
// return value (3 if it throws). The parent collects the pipe while waiting; after `timeout_s`
// seconds (<= 0: no limit) it kills the child with SIGKILL and reports End::TimedOut.
ChildResult run_in_child(const std::function<int(int fd)>& body, double timeout_s);

// Writes all of `s` to `fd` (retrying short writes); false on error.
bool write_all(int fd, const std::string& s);

// "SIGSEGV" etc. ("signal N" when unknown).
std::string signal_name(int sig);

// What happened to a child that gave no complete answer, as one clause:
// "implementation crashed with SIGSEGV", "hung for more than 2 s, killed", "exited with status 3".
std::string describe_child_end(const ChildResult& r, double timeout_s);

// "CUDA context poisoned: <what the CUDA runtime said>", from a backend error message such as
// "cuda: cudaDeviceSynchronize failed: cudaErrorIllegalAddress: an illegal memory access was
// encountered" (the text after the last ": ").
std::string poisoned_context_line(const std::string& backend_error);

// Length-prefixed fields ("<len>:<bytes>") for the child -> parent record.
std::string frame_fields(const std::vector<std::string>& fields);
// false when the record is incomplete or malformed.
bool unframe_fields(const std::string& record, std::vector<std::string>* fields);

}  // namespace dsv4::harness
