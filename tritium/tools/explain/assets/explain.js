// tritium explain: stage panes, two-way line links, layout maps. Plain DOM, no libraries.
(function () {
  "use strict";
  var store = document.getElementById("stage-store");
  var codeByStage = {};
  if (store) {
    Array.prototype.forEach.call(store.querySelectorAll("pre.stage-code"), function (pre) {
      codeByStage[pre.getAttribute("data-stage")] = pre;
    });
  }
  var panes = Array.prototype.slice.call(document.querySelectorAll(".stage-pane"));

  // ---- stage panes: each stage's <pre> lives in exactly one pane or in the store
  function show(pane, stage) {
    var other = panes.filter(function (p) { return p !== pane && p.shownStage === stage; })[0];
    var previous = pane.shownStage;
    var scroll = pane.querySelector(".scroll");
    if (previous && codeByStage[previous].parentNode === scroll) store.appendChild(codeByStage[previous]);
    scroll.appendChild(codeByStage[stage]);
    pane.shownStage = stage;
    Array.prototype.forEach.call(pane.querySelectorAll(".tabs button"), function (b) {
      b.classList.toggle("on", b.getAttribute("data-stage") === stage);
    });
    var note = codeByStage[stage].getAttribute("data-note");
    pane.querySelector(".tabs .note").textContent = note ? "(" + note + ")" : "";
    if (other && previous) show(other, previous);
    if (selected) reveal(selected, null);
  }
  panes.forEach(function (pane) {
    pane.addEventListener("click", function (ev) {
      var b = ev.target.closest(".tabs button");
      if (b) show(pane, b.getAttribute("data-stage"));
    });
  });

  // ---- line links: data-s is the kernel's source line
  var bySource = {};
  Array.prototype.forEach.call(document.querySelectorAll("pre .l[data-s]"), function (el) {
    var s = el.getAttribute("data-s");
    (bySource[s] = bySource[s] || []).push(el);
  });
  var selected = null, hovered = null;

  function mark(s, cls, on) {
    (bySource[s] || []).forEach(function (el) { el.classList.toggle(cls, on); });
  }
  function reveal(s, except) {
    // Scroll the first linked line of every visible pane into view (not the clicked pane).
    document.querySelectorAll(".pane .scroll").forEach(function (scroll) {
      if (scroll === except) return;
      var first = scroll.querySelector('.l.hl[data-s="' + s + '"]');
      if (first) scroll.scrollTop = first.offsetTop - scroll.clientHeight / 3;
    });
  }
  function select(s, origin) {
    if (selected !== null) mark(selected, "hl", false);
    selected = (selected === s) ? null : s;
    if (selected !== null) { mark(selected, "hl", true); reveal(selected, origin); }
  }
  document.addEventListener("click", function (ev) {
    var el = ev.target.closest("pre .l[data-s]");
    if (el) select(el.getAttribute("data-s"), el.closest(".scroll"));
  });
  document.addEventListener("mouseover", function (ev) {
    var el = ev.target.closest("pre .l[data-s]");
    var s = el ? el.getAttribute("data-s") : null;
    if (s === hovered) return;
    if (hovered !== null) mark(hovered, "hv", false);
    hovered = s;
    if (s !== null) mark(s, "hv", true);
  });
  panes.forEach(function (pane) { show(pane, pane.getAttribute("data-default")); });

  // ---- layouts: element -> (warp, lane, register) from the linear layout's bases
  var dataEl = document.getElementById("explain-data");
  var data = dataEl ? JSON.parse(dataEl.textContent) : { layouts: [] };
  function owners(lay) {
    var outs = lay.out_dims, total = 1, strides = [];
    for (var k = outs.length - 1; k >= 0; k--) { strides[k] = total; total *= outs[k][1]; }
    var ins = Object.keys(lay.in_dims).filter(function (d) { return lay.in_dims[d].length; });
    var sizes = ins.map(function (d) { return 1 << lay.in_dims[d].length; });
    var count = sizes.reduce(function (a, b) { return a * b; }, 1);
    var first = new Array(total), reps = new Uint16Array(total);
    for (var i = 0; i < count; i++) {
      var rest = i, coord = outs.map(function () { return 0; }), label = {};
      for (var j = 0; j < ins.length; j++) {
        var v = rest % sizes[j]; rest = Math.floor(rest / sizes[j]); label[ins[j]] = v;
        var bases = lay.in_dims[ins[j]];
        for (var bit = 0; bit < bases.length; bit++) if (v >> bit & 1)
          for (var o = 0; o < outs.length; o++) coord[o] ^= bases[bit][o];
      }
      var flat = 0;
      for (var o2 = 0; o2 < outs.length; o2++) flat += coord[o2] * strides[o2];
      if (first[flat] === undefined) first[flat] = label;
      reps[flat]++;
    }
    return { first: first, reps: reps, total: total };
  }
  function grid(shape) {
    // 2-D tensors as they are, 1-D wrapped (32 columns, so labels fit, up to 1024 elements),
    // leading dims of 3-D+ stacked.
    if (shape.length === 1) {
      var c = Math.min(shape[0], shape[0] <= 1024 ? 32 : 64);
      return [Math.ceil(shape[0] / c), c];
    }
    var cols = shape[shape.length - 1], rows = 1;
    for (var i = 0; i < shape.length - 1; i++) rows *= shape[i];
    return [rows, cols];
  }
  function colour(lab, lay) {
    if (lab === undefined) return "#eee";
    if ("offset" in lab) {
      var bank = Math.floor(lab.offset * lay.bytes / 4) % 32;
      return "hsl(" + (bank * 360 / 32) + ",62%,72%)";
    }
    var warps = 1 << ((lay.in_dims.warp || []).length);
    var hue = ((lab.warp || 0) * 360 / Math.max(1, warps) + 210) % 360;
    return "hsl(" + hue + ",60%," + (58 + ((lab.lane || 0) % 32) * 0.9) + "%)";
  }
  function text(lab) {
    if (lab === undefined) return [];
    if ("offset" in lab) return ["@" + lab.offset];
    var t = (lab.warp || 0) * 32 + (lab.lane || 0);
    return ["t" + t, "r" + (lab.register || 0)];
  }
  function describe(idx, lay, own) {
    var shape = lay.shape, coord = [], rest = idx;
    for (var k = shape.length - 1; k >= 0; k--) { coord[k] = rest % shape[k]; rest = Math.floor(rest / shape[k]); }
    var lab = own.first[idx];
    if (lab === undefined) return "[" + coord.join(", ") + "]: no owner";
    var parts = Object.keys(lab).map(function (k) { return k + " " + lab[k]; });
    if ("lane" in lab) parts.unshift("thread " + ((lab.warp || 0) * 32 + lab.lane));
    var r = own.reps[idx] > 1 ? " (held by " + own.reps[idx] + " in all)" : "";
    return "element [" + coord.join(", ") + "] → " + parts.join(", ") + r;
  }
  Array.prototype.forEach.call(document.querySelectorAll(".layout-draw"), function (box) {
    var lay = data.layouts[+box.getAttribute("data-layout")];
    var own = owners(lay), rc = grid(lay.shape), rows = rc[0], cols = rc[1];
    var cell = Math.max(2, Math.min(34, Math.floor(1100 / cols), Math.floor(900 / rows)));
    var canvas = box.querySelector("canvas"), ctx = canvas.getContext("2d");
    canvas.width = cols * cell; canvas.height = rows * cell;
    ctx.font = Math.max(7, Math.floor(cell / 3.1)) + "px ui-monospace, monospace";
    ctx.textAlign = "center"; ctx.textBaseline = "middle";
    for (var idx = 0; idx < own.total; idx++) {
      var r = Math.floor(idx / cols), c = idx % cols, lab = own.first[idx];
      ctx.fillStyle = colour(lab, lay);
      ctx.fillRect(c * cell, r * cell, cell - (cell > 4 ? 1 : 0), cell - (cell > 4 ? 1 : 0));
      if (cell >= 24) {
        ctx.fillStyle = "#1d2330";
        var t = text(lab);
        for (var k = 0; k < t.length; k++)
          ctx.fillText(t[k], c * cell + cell / 2, r * cell + cell * (t.length === 1 ? 0.5 : 0.3 + 0.4 * k));
      }
    }
    if (lay.in_dims.warp) {   // a key to the warp colours (lane 0's shade)
      var key = document.createElement("div");
      key.className = "layout-key";
      for (var w = 0; w < (1 << lay.in_dims.warp.length); w++) {
        var sw = document.createElement("span");
        sw.style.background = colour({ warp: w, lane: 0 }, lay);
        key.appendChild(sw);
        key.appendChild(document.createTextNode("warp " + w + "  "));
      }
      box.insertBefore(key, canvas);
    }
    var tip = box.querySelector(".layout-tip");
    canvas.addEventListener("mousemove", function (ev) {
      var rect = canvas.getBoundingClientRect();
      var sx = canvas.width / rect.width, sy = canvas.height / rect.height;
      var c = Math.floor((ev.clientX - rect.left) * sx / cell), r = Math.floor((ev.clientY - rect.top) * sy / cell);
      var idx = r * cols + c;
      if (idx >= 0 && idx < own.total) tip.textContent = describe(idx, lay, own);
    });
  });
})();
