// reference.mjs: multi-head attention in plain JavaScript loops over Float32Arrays, written for
// scripts/bench as the "what if we skipped WebAssembly" baseline. Same passes as the core and it
// keeps the same intermediates (Q, K, V, scores, scaled, masked, weights, outputs). Not used by the
// page, and not the reference for correctness (that is the C++ core checked against NumPy).

// C (m x n) = A (m x k) B (k x n), row-major; i-t-j order so the inner loop runs along rows
function matmul(A, B, m, k, n) {
  const C = new Float32Array(m * n);
  for (let i = 0; i < m; i++) {
    const ci = i * n;
    for (let t = 0; t < k; t++) {
      const a = A[i * k + t];
      const bt = t * n;
      for (let j = 0; j < n; j++) C[ci + j] += a * B[bt + j];
    }
  }
  return C;
}

// C (m x n) = A (m x k) B^T, B is n x k: dot products of rows
function matmulABt(A, B, m, k, n) {
  const C = new Float32Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let t = 0; t < k; t++) s += A[i * k + t] * B[j * k + t];
      C[i * n + j] = s;
    }
  }
  return C;
}

function columns(W, rows, cols, c0, w) {
  const out = new Float32Array(rows * w);
  for (let r = 0; r < rows; r++) for (let c = 0; c < w; c++) out[r * w + c] = W[r * cols + c0 + c];
  return out;
}

/** X: n x d; W_Q, W_K, W_V: d x (h dk); W_O: (h dk) x d. -> {head: [...], concat, output} */
export function attendJS(
  X,
  W,
  n,
  d,
  heads,
  { causal = false, scale = true, temperature = 1 } = {},
) {
  const hd = W.W_Q.length / d;
  const dk = hd / heads;
  const factor = scale ? 1 / Math.sqrt(dk) : 1;
  const concat = new Float32Array(n * hd);
  const head = [];
  for (let h = 0; h < heads; h++) {
    // pass 1: project
    const Q = matmul(X, columns(W.W_Q, d, hd, h * dk, dk), n, d, dk);
    const K = matmul(X, columns(W.W_K, d, hd, h * dk, dk), n, d, dk);
    const V = matmul(X, columns(W.W_V, d, hd, h * dk, dk), n, d, dk);
    // pass 2: score; pass 3: scale; pass 4: mask
    const scores = matmulABt(Q, K, n, dk, n);
    const scaled = scores.map((s) => s * factor);
    const masked = scaled.slice();
    if (causal)
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) masked[i * n + j] = -Infinity;
    // pass 5: softmax
    const weights = new Float32Array(n * n);
    for (let i = 0; i < n; i++) {
      let mx = -Infinity;
      for (let j = 0; j < n; j++) mx = Math.max(mx, masked[i * n + j]);
      let sum = 0;
      for (let j = 0; j < n; j++) {
        const e = Math.exp((masked[i * n + j] - mx) / temperature);
        weights[i * n + j] = e;
        sum += e;
      }
      for (let j = 0; j < n; j++) weights[i * n + j] /= sum;
    }
    // pass 6: mix values; pass 7: merge heads
    const output = matmul(weights, V, n, n, dk);
    for (let i = 0; i < n; i++)
      for (let c = 0; c < dk; c++) concat[i * hd + h * dk + c] = output[i * dk + c];
    head.push({ Q, K, V, scores, scaled, masked, weights, output });
  }
  // pass 8: output projection
  return { head, concat, output: matmul(concat, W.W_O, n, hd, d) };
}
