// A model runner's streams, super kernels and capture: the task lists recorded through
// stream capture into one CapturedModel (ModelRunner::Impl).
#include "model_runner_impl.h"

#include <algorithm>
#include <set>
#include <variant>

namespace ge {

Status ModelRunner::Impl::submit_range(CaptureStream& stream, size_t s, size_t begin, size_t end) {
  if (super_runs.empty()) return stream.submit({tasks[s].data() + begin, end - begin});
  const std::map<size_t, SuperRun>& runs = super_runs[s];
  size_t at = begin;
  for (auto run = runs.lower_bound(begin); run != runs.end() && run->first < end; ++run) {
    if (run->first > at) GE_RETURN_IF_ERROR(stream.submit({tasks[s].data() + at, run->first - at}));
    const Task super = run->second.task;
    GE_RETURN_IF_ERROR(stream.submit({&super, 1}));
    at = run->second.end;
  }
  return at < end ? stream.submit({tasks[s].data() + at, end - at}) : Status::ok();
}

Status ModelRunner::Impl::build_super_kernels(size_t max_bytes, const std::string& where) {
  // A caller feature map rewrites workspace fields of `tasks` in place: no copies of them.
  if (max_bytes == 0 || caller_feature_map) return Status::ok();
  std::set<std::pair<size_t, size_t>> grouped;
  for (const PatchedCopy& copy : patched_copies) grouped.emplace(copy.stream, copy.task);
  auto small = [&](size_t s, size_t t) {
    if (t >= task_step[s].size() || task_step[s][t] == SIZE_MAX || grouped.count({s, t})) return false;
    size_t bytes = 0;
    for (const Value* out : order[task_step[s][t]]->outputs()) {
      if (out->desc().is_static()) bytes += element_count(out->desc().static_dims()) * element_size(out->desc().dtype);
    }
    return bytes <= max_bytes;
  };
  super_runs.assign(tasks.size(), {});
  for (const Chunk& chunk : chunks) {
    for (size_t t = chunk.begin; t < chunk.end;) {
      size_t end = t;
      while (end < chunk.end && small(chunk.stream, end)) ++end;
      if (end - t < 2) {
        t = std::max(end, t + 1);
        continue;
      }
      std::vector<KernelTask> span;
      for (size_t k = t; k < end; ++k) span.push_back(std::get<KernelTask>(tasks[chunk.stream][k]));
      Result<PreparedKernel> kernel = backend->prepare_super_kernel(span);
      if (!kernel.is_ok()) {
        super_runs.clear();
        if (kernel.status().code() == StatusCode::kUnsupported) return Status::ok();
        return kernel.status().with_context(where + ": preparing a super kernel");
      }
      super_kernels.push_back(std::move(kernel).value());
      const PreparedKernel& prepared = super_kernels.back();
      super_labels.push_back("super kernel of " + std::to_string(end - t) + " nodes, " +
                             node_labels[task_step[chunk.stream][t]] + " to " +
                             node_labels[task_step[chunk.stream][end - 1]]);
      SuperRun run;
      run.end = end;
      run.task.function = prepared.function;
      run.task.args.params = prepared.params.get();
      run.task.name = prepared.name.c_str();
      run.task.node = super_labels.back().c_str();
      super_runs[chunk.stream].emplace(t, run);
      t = end;
    }
  }
  return Status::ok();
}

Status ModelRunner::Impl::create_streams() {
  for (int s = 0; s < std::max(plan.stream_count, 1); ++s) {
    GE_ASSIGN_OR_RETURN(std::unique_ptr<CaptureStream> stream, CaptureStream::create(*device));
    stream_pointers.push_back(&stream->backend_stream());  // replay skips the capture wrapper
    streams.push_back(std::move(stream));
  }
  for (size_t e = 0; e < plan.events.size(); ++e) {
    GE_ASSIGN_OR_RETURN(std::unique_ptr<Event> event, device->create_event());
    events.push_back(std::move(event));
  }
  return Status::ok();
}

Status ModelRunner::Impl::capture(const std::string& where) {
  size_t task_total = 0;
  for (const auto& list : tasks) task_total += list.size();
  if (task_total == 0) return Status::ok();
  auto fail = [&](const Status& status) { return status.with_context(where + ": capturing the task lists"); };
  CaptureStream& origin = *streams[0];
  // Thread-local: loads on other threads (a session's sibling runners) go on meanwhile.
  if (Status status = begin_capture(origin, CaptureMode::kThreadLocal); !status.is_ok()) return fail(status);
  auto abort_capture = [&](const Status& status) {
    (void)end_capture(origin);
    return fail(status);
  };
  std::vector<std::unique_ptr<Event>> fork_join;
  if (streams.size() > 1) {
    Result<std::unique_ptr<Event>> fork = device->create_event();
    if (!fork.is_ok()) return abort_capture(fork.status());
    const Task record = EventRecordTask{fork->get()};
    if (Status status = origin.submit({&record, 1}); !status.is_ok()) return abort_capture(status);
    for (size_t s = 1; s < streams.size(); ++s) {
      const Task wait = EventWaitTask{fork->get()};
      if (Status status = streams[s]->submit({&wait, 1}); !status.is_ok()) return abort_capture(status);
    }
    fork_join.push_back(std::move(fork).value());
  }
  // Tasks updated after capture (caller-buffer or caller-feature-map addresses held by
  // value) are task groups of their own, in task order.
  std::vector<PatchedCopy*> grouped;
  for (PatchedCopy& copy : patched_copies) grouped.push_back(&copy);
  for (PatchedCopy& task : arena_tasks) grouped.push_back(&task);
  std::sort(grouped.begin(), grouped.end(), [](const PatchedCopy* a, const PatchedCopy* b) {
    return std::pair(a->stream, a->task) < std::pair(b->stream, b->task);
  });
  for (const Chunk& chunk : chunks) {
    CaptureStream& stream = *streams[chunk.stream];
    size_t begin = chunk.begin;
    // Submit the chunk, giving each of those tasks a task group.
    for (PatchedCopy* patched : grouped) {
      PatchedCopy& copy = *patched;
      if (copy.stream != chunk.stream || copy.task < chunk.begin || copy.task >= chunk.end) continue;
      if (copy.task > begin) {
        if (Status status = submit_range(stream, chunk.stream, begin, copy.task); !status.is_ok())
          return abort_capture(status);
      }
      if (Status status = begin_task_group(stream); !status.is_ok()) return abort_capture(status);
      if (Status status = stream.submit({tasks[chunk.stream].data() + copy.task, 1}); !status.is_ok())
        return abort_capture(status);
      Result<TaskGroupHandle> group = end_task_group(stream);
      if (!group.is_ok()) return abort_capture(group.status());
      copy.group = *group;
      begin = copy.task + 1;
    }
    if (chunk.end > begin) {
      if (Status status = submit_range(stream, chunk.stream, begin, chunk.end); !status.is_ok())
        return abort_capture(status);
    }
  }
  for (size_t s = 1; s < streams.size(); ++s) {
    Result<std::unique_ptr<Event>> join = device->create_event();
    if (!join.is_ok()) return abort_capture(join.status());
    const Task record = EventRecordTask{join->get()};
    const Task wait = EventWaitTask{join->get()};
    if (Status status = streams[s]->submit({&record, 1}); !status.is_ok()) return abort_capture(status);
    if (Status status = origin.submit({&wait, 1}); !status.is_ok()) return abort_capture(status);
    fork_join.push_back(std::move(join).value());
  }
  Result<std::unique_ptr<CapturedModel>> model = end_capture(origin);
  if (!model.is_ok()) return fail(model.status());
  if ((*model)->stream_count() != streams.size()) {
    return internal_error(where + ": the capture joined " + std::to_string((*model)->stream_count()) + " of " +
                          std::to_string(streams.size()) + " streams");
  }
  captured = std::move(model).value();
  return Status::ok();
}

}  // namespace ge
