"""Text of the shared server: queued heavy jobs, shared computations, busy timings, missing torch."""

TEXT: dict[str, dict[str, str]] = {
    "hosting.queue_light": {
        "en": "Waiting for the server: it computes two results at a time for all its visitors, and "
              "{ahead} ahead of this one are running or waiting. Waited {seconds} s.",
        "zh": "正在排队：服务器为所有访问者一次最多计算两个结果，"
              "前面还有 {ahead} 个正在运行或等待。已等待 {seconds} 秒。",
    },
    "hosting.queue": {
        "en": "Waiting for the server: heavy jobs (live timing, training) run one at a time, and "
              "{ahead} ahead of this one are running or waiting. Waited {seconds} s.",
        "zh": "正在排队：耗时任务（实时计时、训练）在服务器上一次只运行一个，"
              "前面还有 {ahead} 个正在运行或等待。已等待 {seconds} 秒。",
    },
    "hosting.giving_way": {
        "en": "Computing; paused for a moment while other visitors' pages compute (heavy jobs give way "
              "to the light pages on a shared server)…",
        "zh": "计算中；其他访问者的页面正在计算，暂时让行（在共享服务器上，耗时任务优先让轻量页面先算）……",
    },
    "hosting.computing_shared": {
        "en": "Computing (another session asked for the same figure; it is computed once for both)…",
        "zh": "计算中（另一个会话请求了同一张图，只计算一次，结果共用）……",
    },
    "hosting.timing_busy": {
        "en": "While these times were measured, {others} other session(s) were running on this server: "
              "live timings on a shared server are noisy. For clean figures run the command at the "
              "bottom of this page on an idle machine.",
        "zh": "测量这些时间时，服务器上还有 {others} 个其他会话在运行：在共享服务器上实时计时会有噪声。"
              "若要干净的数字，请在空闲的机器上运行本页底部的命令。",
    },
    "hosting.torch_missing": {
        "en": "This figure needs PyTorch, which is not available on this server ({why}). The pages "
              "that do not need it work as usual; to enable it install the requirements "
              "(see docs/hosting.md).",
        "zh": "此图需要 PyTorch，但本服务器上无法使用（{why}）。不需要它的页面照常工作；"
              "如需启用，请安装依赖（见 docs/hosting.md）。",
    },
}
