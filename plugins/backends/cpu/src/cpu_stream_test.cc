// Tests of the asynchronous CpuStream, CpuEvent and their worker pool: ordering, events
// across streams, more streams than workers, errors, destruction, concurrent submitters.

#include "cpu_stream.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cpu_device.h"
#include "cpu_event.h"

namespace ge {
namespace {

using Body = std::function<int()>;

int call_body(const KernelArgs& args) { return (*static_cast<const Body*>(args.params))(); }

/// Owns the kernel bodies (their KernelArgs point here) until the test ends.
class Kernels {
 public:
  Task make(Body body, const char* name = "test.body") {
    bodies_.push_back(std::move(body));
    KernelTask task;
    task.function = &call_body;
    task.args.params = &bodies_.back();
    task.name = name;
    return task;
  }

 private:
  std::deque<Body> bodies_;  // stable addresses
};

std::unique_ptr<Stream> make_stream(Device& device) {
  Result<std::unique_ptr<Stream>> stream = device.create_stream();
  EXPECT_TRUE(stream.is_ok()) << stream.status().to_string();
  return stream.is_ok() ? std::move(*stream) : nullptr;
}

std::unique_ptr<Event> make_event(Device& device) {
  Result<std::unique_ptr<Event>> event = device.create_event();
  EXPECT_TRUE(event.is_ok()) << event.status().to_string();
  return event.is_ok() ? std::move(*event) : nullptr;
}

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

TEST(CpuStreamAsync, SubmitReturnsBeforeTheTasksRun) {
  CpuDevice device;
  std::unique_ptr<Stream> stream = make_stream(device);
  Kernels kernels;
  std::atomic<bool> release{false};
  std::atomic<bool> ran{false};
  const Task tasks[] = {kernels.make([&] {
    while (!release.load()) std::this_thread::yield();
    ran = true;
    return 0;
  })};
  ASSERT_TRUE(stream->submit(tasks).is_ok());  // would never return if it ran here
  EXPECT_FALSE(ran.load());
  release = true;
  ASSERT_TRUE(stream->synchronize().is_ok());
  EXPECT_TRUE(ran.load());
}

TEST(CpuStreamAsync, RunsTasksInSubmissionOrder) {
  CpuDevice device(CpuDeviceOptions{false, 2});
  std::unique_ptr<Stream> stream = make_stream(device);
  Kernels kernels;
  std::vector<int> log;  // only ever touched by the stream's tasks, one at a time
  int copied = -1;
  for (int submit = 0; submit < 100; ++submit) {
    std::vector<Task> tasks;  // dies right after submit: the stream must have copied it
    for (int i = 0; i < 50; ++i) {
      const int value = submit * 50 + i;
      tasks.push_back(kernels.make([&log, value] {
        log.push_back(value);
        return 0;
      }));
    }
    ASSERT_TRUE(stream->submit(tasks).is_ok());
  }
  // A copy after the kernels sees all of them.
  int last = 0;
  std::vector<Task> tail{kernels.make([&] {
                           last = log.back();
                           return 0;
                         }),
                         MemcpyTask{&copied, &last, sizeof(int)}};
  ASSERT_TRUE(stream->submit(tail).is_ok());
  ASSERT_TRUE(stream->synchronize().is_ok());
  ASSERT_EQ(log.size(), 5000u);
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(log[i], i);
  EXPECT_EQ(copied, 4999);
}

TEST(CpuStreamAsync, RunOnAnIdleStreamRunsOnTheCallingThread) {
  CpuDevice device(CpuDeviceOptions{false, 2});
  std::unique_ptr<Stream> stream = make_stream(device);
  Kernels kernels;
  std::thread::id ran_on;
  const Task tasks[] = {kernels.make([&] {
    ran_on = std::this_thread::get_id();
    return 0;
  })};
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(stream->run(tasks).is_ok());
    ASSERT_EQ(ran_on, std::this_thread::get_id()) << "run " << i;
  }
  // Errors come back from run() itself, and the next run starts clean.
  const Task failing[] = {kernels.make([] { return 7; }, "test.fails")};
  const Status failed = stream->run(failing);
  ASSERT_FALSE(failed.is_ok());
  EXPECT_NE(failed.message().find("test.fails"), std::string::npos) << failed.message();
  EXPECT_TRUE(stream->run(tasks).is_ok());
}

TEST(CpuStreamAsync, RunAfterQueuedWorkRunsBothInOrderAndWaitsForEvents) {
  CpuDevice device(CpuDeviceOptions{false, 2});
  std::unique_ptr<Stream> producer = make_stream(device);
  std::unique_ptr<Stream> consumer = make_stream(device);
  std::unique_ptr<Event> ready = make_event(device);
  Kernels kernels;
  std::vector<int> order;
  int value = 0, seen = -1;
  const Task produce[] = {kernels.make([&] {
                            sleep_ms(30);
                            value = 42;
                            return 0;
                          }),
                          EventRecordTask{ready.get()}};
  const Task queued[] = {kernels.make([&] {
    order.push_back(1);
    return 0;
  })};
  // run() waits on an event another stream records later: it must not return early.
  const Task then[] = {EventWaitTask{ready.get()}, kernels.make([&] {
                         order.push_back(2);
                         seen = value;
                         return 0;
                       })};
  ASSERT_TRUE(producer->submit(produce).is_ok());
  ASSERT_TRUE(consumer->submit(queued).is_ok());
  ASSERT_TRUE(consumer->run(then).is_ok());
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_EQ(seen, 42);
  ASSERT_TRUE(producer->synchronize().is_ok());
}

TEST(CpuStreamAsync, RunOnAnIdleStreamBlockedByAnEventHandsTheRestToTheQueue) {
  CpuDevice device(CpuDeviceOptions{false, 2});
  std::unique_ptr<Stream> producer = make_stream(device);
  std::unique_ptr<Stream> consumer = make_stream(device);
  std::unique_ptr<Stream> third = make_stream(device);
  std::unique_ptr<Event> ready = make_event(device);
  std::unique_ptr<Event> done = make_event(device);
  Kernels kernels;
  std::atomic<int> value{0};
  int seen = -1, after = -1;
  std::thread::id first_on;
  const Task produce[] = {kernels.make([&] {
                            sleep_ms(30);
                            value = 42;
                            return 0;
                          }),
                          EventRecordTask{ready.get()}};
  ASSERT_TRUE(producer->submit(produce).is_ok());
  // The consumer is idle: run() starts inline, meets the unreached wait, and the rest
  // (the kernel and a record) must still run in order, after the producer's record.
  const Task consume[] = {kernels.make([&] {
                            first_on = std::this_thread::get_id();
                            return 0;
                          }),
                          EventWaitTask{ready.get()}, kernels.make([&] {
                            seen = value.load();
                            return 0;
                          }),
                          EventRecordTask{done.get()}};
  const Task follow[] = {EventWaitTask{done.get()}, kernels.make([&] {
                           after = seen;
                           return 0;
                         })};
  ASSERT_TRUE(consumer->run(consume).is_ok());
  EXPECT_EQ(first_on, std::this_thread::get_id());
  EXPECT_EQ(seen, 42);
  ASSERT_TRUE(third->submit(follow).is_ok());
  ASSERT_TRUE(third->synchronize().is_ok());
  EXPECT_EQ(after, 42);
  ASSERT_TRUE(producer->synchronize().is_ok());
}

TEST(CpuStreamAsync, RunInSynchronousModeRunsInline) {
  CpuDevice device(CpuDeviceOptions{true, 1});
  std::unique_ptr<Stream> stream = make_stream(device);
  Kernels kernels;
  std::thread::id ran_on;
  const Task tasks[] = {kernels.make([&] {
    ran_on = std::this_thread::get_id();
    return 0;
  })};
  ASSERT_TRUE(stream->run(tasks).is_ok());
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST(CpuStreamAsync, WaitOnAnEventOrdersStreams) {
  CpuDevice device(CpuDeviceOptions{false, 2});
  std::unique_ptr<Stream> producer = make_stream(device);
  std::unique_ptr<Stream> consumer = make_stream(device);
  std::unique_ptr<Event> ready = make_event(device);
  Kernels kernels;
  int value = 0, seen = -1;
  const Task produce[] = {kernels.make([&] {
                            sleep_ms(30);
                            value = 42;
                            return 0;
                          }),
                          EventRecordTask{ready.get()}};
  const Task consume[] = {EventWaitTask{ready.get()}, kernels.make([&] {
                            seen = value;
                            return 0;
                          })};
  ASSERT_TRUE(producer->submit(produce).is_ok());
  ASSERT_TRUE(consumer->submit(consume).is_ok());
  ASSERT_TRUE(consumer->synchronize().is_ok());
  EXPECT_EQ(seen, 42);
  ASSERT_TRUE(producer->synchronize().is_ok());
}

TEST(CpuStreamAsync, EventSynchronizeWaitsForTheRecordedPoint) {
  CpuDevice device;
  std::unique_ptr<Stream> stream = make_stream(device);
  std::unique_ptr<Event> event = make_event(device);
  EXPECT_TRUE(event->synchronize().is_ok());  // nothing recorded: returns at once
  Kernels kernels;
  std::atomic<int> value{0};
  const Task tasks[] = {kernels.make([&] {
                          sleep_ms(20);
                          value = 1;
                          return 0;
                        }),
                        EventRecordTask{event.get()}, kernels.make([&] {
                          sleep_ms(20);
                          value = 2;
                          return 0;
                        })};
  ASSERT_TRUE(stream->submit(tasks).is_ok());
  ASSERT_TRUE(event->synchronize().is_ok());
  EXPECT_GE(value.load(), 1);
  ASSERT_TRUE(stream->synchronize().is_ok());
  EXPECT_EQ(value.load(), 2);
}

TEST(CpuStreamAsync, WaitSubmittedBeforeAnyRecordDoesNotWait) {
  CpuDevice device;
  std::unique_ptr<Stream> stream = make_stream(device);
  std::unique_ptr<Event> event = make_event(device);
  const Task tasks[] = {EventWaitTask{event.get()}};
  ASSERT_TRUE(stream->submit(tasks).is_ok());
  EXPECT_TRUE(stream->synchronize().is_ok());
}

// Two workers, one held by a kernel that only a later stream can release, and a chain of
// eight streams each waiting for the previous one: blocked streams must give their worker
// back, or the releasing stream never runs.
TEST(CpuStreamAsync, MoreStreamsThanWorkersWithEventChainsDoNotDeadlock) {
  CpuDevice device(CpuDeviceOptions{false, 2});
  Kernels kernels;
  std::atomic<bool> released{false};
  std::unique_ptr<Stream> gate = make_stream(device);
  std::unique_ptr<Event> gate_event = make_event(device);
  const Task gate_tasks[] = {kernels.make([&] {
                               while (!released.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
                               return 0;
                             }),
                             EventRecordTask{gate_event.get()}};
  ASSERT_TRUE(gate->submit(gate_tasks).is_ok());
  sleep_ms(5);  // let a worker take the gate

  constexpr int kChain = 8;
  std::vector<std::unique_ptr<Stream>> streams;
  std::vector<std::unique_ptr<Event>> events;
  std::vector<int> order;  // appended along the chain only
  Event* previous = gate_event.get();
  for (int i = 0; i < kChain; ++i) {
    streams.push_back(make_stream(device));
    events.push_back(make_event(device));
    const Task tasks[] = {EventWaitTask{previous}, kernels.make([&order, i] {
                            order.push_back(i);
                            return 0;
                          }),
                          EventRecordTask{events.back().get()}};
    ASSERT_TRUE(streams.back()->submit(tasks).is_ok());
    previous = events.back().get();
  }
  std::unique_ptr<Stream> releaser = make_stream(device);
  const Task release[] = {kernels.make([&] {
    released = true;
    return 0;
  })};
  ASSERT_TRUE(releaser->submit(release).is_ok());

  ASSERT_TRUE(previous->synchronize().is_ok());
  for (auto& stream : streams) ASSERT_TRUE(stream->synchronize().is_ok());
  ASSERT_TRUE(gate->synchronize().is_ok());
  ASSERT_TRUE(releaser->synchronize().is_ok());
  ASSERT_EQ(order.size(), static_cast<size_t>(kChain));
  for (int i = 0; i < kChain; ++i) EXPECT_EQ(order[i], i);
}

// One worker, many rounds of ping-pong between two streams through reused events.
TEST(CpuStreamAsync, PingPongOnOneWorker) {
  CpuDevice device(CpuDeviceOptions{false, 1});
  std::unique_ptr<Stream> a = make_stream(device);
  std::unique_ptr<Stream> b = make_stream(device);
  std::unique_ptr<Event> a_done = make_event(device);
  std::unique_ptr<Event> b_done = make_event(device);
  Kernels kernels;
  std::vector<int> log;
  for (int round = 0; round < 200; ++round) {
    const Task on_a[] = {EventWaitTask{b_done.get()}, kernels.make([&log, round] {
                           log.push_back(2 * round);
                           return 0;
                         }),
                         EventRecordTask{a_done.get()}};
    ASSERT_TRUE(a->submit(on_a).is_ok());
    const Task on_b[] = {EventWaitTask{a_done.get()}, kernels.make([&log, round] {
                           log.push_back(2 * round + 1);
                           return 0;
                         }),
                         EventRecordTask{b_done.get()}};
    ASSERT_TRUE(b->submit(on_b).is_ok());
  }
  ASSERT_TRUE(b->synchronize().is_ok());
  ASSERT_TRUE(a->synchronize().is_ok());
  ASSERT_EQ(log.size(), 400u);
  for (int i = 0; i < 400; ++i) ASSERT_EQ(log[i], i);
}

TEST(CpuStreamAsync, AFailureSkipsLaterTasksUntilSynchronizeReportsIt) {
  CpuDevice device;
  std::unique_ptr<Stream> stream = make_stream(device);
  Kernels kernels;
  int before = 0, after = 0, next_submit = 0, after_report = 0;
  const Task first[] = {kernels.make([&] {
                          before = 1;
                          return 0;
                        }),
                        kernels.make([] { return 1; }, "cpu.Div"), kernels.make([&] {
                          after = 1;
                          return 0;
                        })};
  const Task second[] = {kernels.make([&] {
    next_submit = 1;
    return 0;
  })};
  ASSERT_TRUE(stream->submit(first).is_ok());
  ASSERT_TRUE(stream->submit(second).is_ok());
  Status status = stream->synchronize();
  ASSERT_FALSE(status.is_ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("kernel 'cpu.Div' (task 1)"), std::string::npos) << status.message();
  EXPECT_EQ(before, 1);
  EXPECT_EQ(after, 0);
  EXPECT_EQ(next_submit, 0);
  // Reported once; the stream then runs again.
  EXPECT_TRUE(stream->synchronize().is_ok());
  const Task third[] = {kernels.make([&] {
    after_report = 1;
    return 0;
  })};
  ASSERT_TRUE(stream->submit(third).is_ok());
  EXPECT_TRUE(stream->synchronize().is_ok());
  EXPECT_EQ(after_report, 1);
}

TEST(CpuStreamAsync, OnlyTheFirstErrorIsReported) {
  CpuDevice device;
  std::unique_ptr<Stream> stream = make_stream(device);
  Kernels kernels;
  const Task first[] = {kernels.make([] { return 1; }, "first")};
  const Task second[] = {kernels.make([] { return 2; }, "second")};
  ASSERT_TRUE(stream->submit(first).is_ok());
  ASSERT_TRUE(stream->synchronize().code() == StatusCode::kInvalidArgument);
  ASSERT_TRUE(stream->submit(first).is_ok());
  ASSERT_TRUE(stream->submit(second).is_ok());
  Status status = stream->synchronize();
  EXPECT_NE(status.message().find("'first'"), std::string::npos) << status.message();
}

TEST(CpuStreamAsync, RecordsAfterAFailureStillFireSoOtherStreamsDoNotHang) {
  CpuDevice device(CpuDeviceOptions{false, 2});
  std::unique_ptr<Stream> failing = make_stream(device);
  std::unique_ptr<Stream> waiting = make_stream(device);
  std::unique_ptr<Event> event = make_event(device);
  Kernels kernels;
  int ran = 0;
  const Task fail[] = {kernels.make([] {
                         sleep_ms(10);
                         return 1;
                       }),
                       EventRecordTask{event.get()}};
  const Task wait[] = {EventWaitTask{event.get()}, kernels.make([&] {
                         ran = 1;
                         return 0;
                       })};
  ASSERT_TRUE(failing->submit(fail).is_ok());
  ASSERT_TRUE(waiting->submit(wait).is_ok());
  EXPECT_TRUE(waiting->synchronize().is_ok());
  EXPECT_EQ(ran, 1);
  EXPECT_FALSE(failing->synchronize().is_ok());
}

TEST(CpuStreamAsync, MalformedTasksAreRejectedAtSubmitAndNoneIsQueued) {
  CpuDevice device;
  std::unique_ptr<Stream> stream = make_stream(device);
  Kernels kernels;
  int ran = 0;
  const Task tasks[] = {kernels.make([&] {
                          ran = 1;
                          return 0;
                        }),
                        KernelTask{}};
  EXPECT_EQ(stream->submit(tasks).code(), StatusCode::kInternal);
  EXPECT_TRUE(stream->synchronize().is_ok());
  EXPECT_EQ(ran, 0);
}

TEST(CpuStreamAsync, DestructionDrainsPendingWork) {
  Kernels kernels;
  std::atomic<int> done{0};
  {
    auto device = std::make_unique<CpuDevice>(CpuDeviceOptions{false, 2});
    std::unique_ptr<Stream> stream = make_stream(*device);
    std::unique_ptr<Event> event = make_event(*device);
    device.reset();  // the stream keeps the worker pool alive
    for (int i = 0; i < 20; ++i) {
      const Task tasks[] = {kernels.make([&] {
                              sleep_ms(1);
                              ++done;
                              return 0;
                            }),
                            EventRecordTask{event.get()}};
      ASSERT_TRUE(stream->submit(tasks).is_ok());
    }
    const Task failing[] = {kernels.make([] { return 1; })};
    ASSERT_TRUE(stream->submit(failing).is_ok());  // an unreported error is dropped
    stream.reset();
    EXPECT_EQ(done.load(), 20);
  }
  EXPECT_EQ(done.load(), 20);
}

TEST(CpuStreamAsync, ManySubmitsFromTwoHostThreads) {
  CpuDevice device(CpuDeviceOptions{false, 2});
  std::unique_ptr<Stream> shared = make_stream(device);
  std::unique_ptr<Event> shared_event = make_event(device);
  constexpr int kSubmits = 2000;
  struct PerThread {
    Kernels kernels;
    std::unique_ptr<Stream> own;
    std::unique_ptr<Event> own_event;
    std::vector<int> own_log;
    int last_seen = -1;
    bool in_order = true;
  };
  PerThread threads[2];
  std::vector<std::pair<int, int>> shared_log;  // (thread, sequence): run one at a time
  for (PerThread& t : threads) {
    t.own = make_stream(device);
    t.own_event = make_event(device);
  }
  auto submitter = [&](int id) {
    PerThread& t = threads[id];
    for (int i = 0; i < kSubmits; ++i) {
      const Task on_own[] = {t.kernels.make([&t, i] {
                               t.own_log.push_back(i);
                               return 0;
                             }),
                             EventRecordTask{t.own_event.get()}};
      if (!t.own->submit(on_own).is_ok()) return;
      const Task on_shared[] = {t.kernels.make([&shared_log, id, i] {
                                  shared_log.emplace_back(id, i);
                                  return 0;
                                }),
                                EventRecordTask{shared_event.get()}};
      if (!shared->submit(on_shared).is_ok()) return;
      if (i % 100 == 0 && !t.own->synchronize().is_ok()) return;
    }
  };
  std::thread first(submitter, 0), second(submitter, 1);
  first.join();
  second.join();
  ASSERT_TRUE(shared->synchronize().is_ok());
  ASSERT_TRUE(shared_event->synchronize().is_ok());
  for (PerThread& t : threads) {
    ASSERT_TRUE(t.own->synchronize().is_ok());
    ASSERT_TRUE(t.own_event->synchronize().is_ok());
    ASSERT_EQ(t.own_log.size(), static_cast<size_t>(kSubmits));
    for (int i = 0; i < kSubmits; ++i) ASSERT_EQ(t.own_log[i], i);
  }
  ASSERT_EQ(shared_log.size(), static_cast<size_t>(2 * kSubmits));
  int next[2] = {0, 0};
  for (const auto& [id, sequence] : shared_log) {
    ASSERT_EQ(sequence, next[id]) << "thread " << id;  // each thread's tasks keep their order
    ++next[id];
  }
}

// The conformance runner forks without exec: a child has none of the pool's workers.
TEST(CpuStreamAsync, WorksInAForkedChild) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ThreadSanitizer does not support threads started after a multi-threaded fork";
#else
  CpuDevice device(CpuDeviceOptions{false, 2});
  std::unique_ptr<Stream> before_fork = make_stream(device);
  std::unique_ptr<Event> event = make_event(device);
  Kernels kernels;
  int value = 0;
  const Task warm[] = {kernels.make([] { return 0; })};
  ASSERT_TRUE(before_fork->submit(warm).is_ok());
  ASSERT_TRUE(before_fork->synchronize().is_ok());
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::unique_ptr<Stream> after_fork = make_stream(device);
    const Task first[] = {kernels.make([&] {
                            value = 1;
                            return 0;
                          }),
                          EventRecordTask{event.get()}};
    const Task second[] = {EventWaitTask{event.get()}, kernels.make([&] {
                             value = value == 1 ? 2 : -1;
                             return 0;
                           })};
    const bool ok = before_fork->submit(first).is_ok() && after_fork->submit(second).is_ok() &&
                    after_fork->synchronize().is_ok() && before_fork->synchronize().is_ok() && value == 2;
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
#endif
}

TEST(CpuStreamAsync, SynchronousModeRunsInSubmit) {
  CpuDevice device(CpuDeviceOptions{true, 0});
  std::unique_ptr<Stream> stream = make_stream(device);
  std::unique_ptr<Event> event = make_event(device);
  Kernels kernels;
  int value = 0;
  const Task tasks[] = {kernels.make([&] {
                          value = 1;
                          return 0;
                        }),
                        EventRecordTask{event.get()}, EventWaitTask{event.get()}};
  ASSERT_TRUE(stream->submit(tasks).is_ok());
  EXPECT_EQ(value, 1);
  EXPECT_TRUE(event->synchronize().is_ok());
  const Task failing[] = {kernels.make([] { return 1; }, "cpu.Div")};
  EXPECT_FALSE(stream->submit(failing).is_ok());
  EXPECT_TRUE(stream->synchronize().is_ok());
}

TEST(CpuDeviceOptions, ReadsRegistryOptions) {
  PluginOptions options;
  options.set("synchronous", true);
  options.set("threads", int64_t{3});
  Result<CpuDeviceOptions> parsed = CpuDeviceOptions::from_options(options);
  ASSERT_TRUE(parsed.is_ok());
  EXPECT_TRUE(parsed->synchronous);
  EXPECT_EQ(parsed->threads, 3u);
  Result<CpuDeviceOptions> defaults = CpuDeviceOptions::from_options(PluginOptions{});
  ASSERT_TRUE(defaults.is_ok());
  EXPECT_FALSE(defaults->synchronous);
  EXPECT_EQ(defaults->threads, 0u);
  options.set("threads", int64_t{-1});
  EXPECT_FALSE(CpuDeviceOptions::from_options(options).is_ok());
}

TEST(CpuDeviceOptions, CannotChangeOnceAStreamExists) {
  CpuDevice device;
  EXPECT_TRUE(device.configure(CpuDeviceOptions{false, 1}).is_ok());
  std::unique_ptr<Stream> stream = make_stream(device);
  EXPECT_FALSE(device.configure(CpuDeviceOptions{true, 0}).is_ok());
}

}  // namespace
}  // namespace ge
