"""Strings shared by the shell, the sidebar, the charts and the notices."""


TEXT: dict[str, dict[str, str]] = {
    # shell
    "common.app_title": {"en": "Attention Scale Explorer", "zh": "注意力缩放探索器"},
    "common.app_subtitle": {
        "en": "Why scaled dot-product attention divides by √d_k — measured live.",
        "zh": "缩放点积注意力为什么要除以 √d_k——实时测量给你看。",
    },
    "common.section.story": {"en": "Why √d_k", "zh": "为什么是 √d_k"},
    "common.section.beyond": {"en": "Going further", "zh": "深入探讨"},
    "common.section.practice": {"en": "In practice", "zh": "实践"},
    # sidebar controls
    "common.sidebar.header": {"en": "Shared settings", "zh": "共享设置"},
    "common.sidebar.help": {
        "en": "These settings apply to every page and are stored in the URL: "
              "copy the link to share this view.",
        "zh": "这些设置作用于所有页面，并保存在网址中：复制链接即可分享当前视图。",
    },
    "common.lang.label": {"en": "Language", "zh": "语言"},
    "common.dk.pow2": {"en": "Key dimension d_k (powers of two)", "zh": "键维度 d_k（2 的幂）"},
    "common.dk.exact": {"en": "Exact d_k", "zh": "精确 d_k"},
    "common.n.label": {"en": "Number of keys n", "zh": "键的数量 n"},
    "common.scales.label": {"en": "Scales c(d_k) to compare", "zh": "要比较的缩放 c(d_k)"},
    "common.scales.empty": {
        "en": "No scale selected; showing 1/√d_k.",
        "zh": "未选择缩放方式；显示 1/√d_k。",
    },
    "common.power_a.label": {"en": "Exponent a of c = d_k^−a", "zh": "c = d_k^−a 的指数 a"},
    "common.advanced": {"en": "Exact d_k, sampling and backend", "zh": "精确 d_k、采样与计算后端"},
    "common.dk.exact_note": {
        "en": "d_k = {dk} exactly (set below, under “Exact d_k, sampling and backend”).",
        "zh": "d_k 精确为 {dk}（在下方“精确 d_k、采样与计算后端”中设置）。",
    },
    "common.trials.label": {"en": "Trials (random draws)", "zh": "试验次数（随机抽样）"},
    "common.seed.label": {"en": "Random seed", "zh": "随机种子"},
    "common.backend.label": {"en": "Backend", "zh": "计算后端"},
    "common.backend.auto": {"en": "auto (GPU if available)", "zh": "自动（有 GPU 时用 GPU）"},
    "common.backend.numpy": {"en": "NumPy (CPU)", "zh": "NumPy（CPU）"},
    "common.backend.cupy": {"en": "CuPy (NVIDIA GPU)", "zh": "CuPy（NVIDIA GPU）"},
    "common.backend.unavailable": {
        "en": "CuPy is not available on this machine; using NumPy on the CPU.",
        "zh": "本机无法使用 CuPy；改用 CPU 上的 NumPy。",
    },
    "common.dtype.label": {"en": "Floating-point type", "zh": "浮点类型"},
    "common.device": {"en": "Device: {device}", "zh": "设备：{device}"},
    "common.device.numpy": {"en": "NumPy on CPU ({cores} cores)", "zh": "CPU 上的 NumPy（{cores} 核）"},
    "common.device.cupy": {"en": "CuPy on {gpu}", "zh": "{gpu} 上的 CuPy"},
    "common.kernels.checked": {
        "en": "Our CUDA kernels in use, each checked against its NumPy twin on this GPU first: {files}.",
        "zh": "正在使用我们自己的 CUDA 内核，每个都先在这块 GPU 上与其 NumPy 对照实现核对过：{files}。",
    },
    "common.kernels.pending": {
        "en": "Our CUDA kernels are compiled on first use and checked against their NumPy twins before "
              "any figure uses them.",
        "zh": "我们的 CUDA 内核在首次使用时编译，并在任何图表使用之前先与其 NumPy 对照实现核对。",
    },
    "common.kernels.fallback": {
        "en": "Our CUDA kernel file {source} is not used on this GPU; its figures come from the reference "
              "path (the same formulas as plain CuPy array operations). Why: {why}",
        "zh": "我们的 CUDA 内核文件 {source} 未在这块 GPU 上使用；相关数字改由参考实现"
              "（以普通 CuPy 数组运算实现的同一公式）计算。原因（英文）：{why}",
    },
    # URL validation
    "common.url.clamped": {
        "en": "URL value {setting} is out of range; using {value}.",
        "zh": "网址参数 {setting} 超出范围；改用 {value}。",
    },
    "common.url.malformed": {
        "en": "URL value {setting} is not valid; using the default {value}.",
        "zh": "网址参数 {setting} 无效；改用默认值 {value}。",
    },
    # scale family labels (docs/science.md §1)
    "common.scale.none": {"en": "none: c = 1", "zh": "不缩放：c = 1"},
    "common.scale.sqrt": {"en": "sqrt: c = 1/√d_k", "zh": "平方根：c = 1/√d_k"},
    "common.scale.linear": {"en": "linear: c = 1/d_k", "zh": "线性：c = 1/d_k"},
    "common.scale.log": {"en": "log: c = 1/ln d_k", "zh": "对数：c = 1/ln d_k"},
    "common.scale.double-sqrt": {"en": "double-sqrt: c = 1/(2√d_k)", "zh": "双倍平方根：c = 1/(2√d_k)"},
    "common.scale.power": {"en": "power: c = d_k^−a", "zh": "幂：c = d_k^−a"},
    "common.scale.power_a": {"en": "power: c = d_k^−{a}", "zh": "幂：c = d_k^−{a}"},
    "common.scale.const": {"en": "constant: c = {c}", "zh": "常数：c = {c}"},
    "common.scale.skipped": {
        "en": "Scale {scale} is undefined at d_k = {dk} (ln 1 = 0) and is left out here.",
        "zh": "缩放 {scale} 在 d_k = {dk} 时无定义（ln 1 = 0），此处略去。",
    },
    # charts
    "common.axis.dk": {"en": "key dimension d_k", "zh": "键维度 d_k"},
    "common.axis.n": {"en": "number of keys n", "zh": "键的数量 n"},
    "common.legend.scale": {"en": "scale c(d_k)", "zh": "缩放 c(d_k)"},
    "common.legend.dtype": {"en": "dtype", "zh": "数据类型"},
    "common.current_dk": {"en": "current d_k", "zh": "当前 d_k"},
    "common.download.label": {"en": "Download", "zh": "下载"},
    "common.table.region": {"en": "Table (scrolls sideways)", "zh": "表格（可左右滚动）"},
    "common.download.csv": {"en": "Data (CSV)", "zh": "数据（CSV）"},
    "common.download.png": {"en": "Chart (PNG)", "zh": "图表（PNG）"},
    "common.download.svg": {"en": "Chart (SVG)", "zh": "图表（SVG）"},
    # notices and errors
    "common.what_to_notice": {"en": "What to notice", "zh": "值得注意"},
    "common.computing": {"en": "Computing…", "zh": "计算中……"},
    "common.trials_reduced": {
        "en": "To stay interactive this figure uses {used} of the {asked} trials (n = {n}).",
        "zh": "为保持交互流畅，此图只用了 {asked} 次试验中的 {used} 次（n = {n}）。",
    },
    "common.error.input": {"en": "These settings cannot be computed.", "zh": "这些设置无法计算。"},
    "common.error.budget": {
        "en": "This would take too long or need too much memory; choose a smaller n, d_k or fewer trials.",
        "zh": "计算耗时过长或内存不足；请减小 n、d_k 或试验次数。",
    },
    "common.error.backend": {
        "en": "The selected backend is not available here; choose NumPy.",
        "zh": "所选计算后端在此不可用；请选择 NumPy。",
    },
    "common.error.unexpected": {
        "en": "Something went wrong while computing this figure.",
        "zh": "计算此图时出错。",
    },
    "common.error.details": {"en": "Details: {msg}", "zh": "详细信息（英文）：{msg}"},
    "common.nan": {"en": "NaN", "zh": "NaN"},
}
