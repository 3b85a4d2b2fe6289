;; The inner loop of a query's dot products with a segment of sparse vectors
;; (segment-dots.ts), compiled to WebAssembly by `pnpm gen`
;; (scripts/gen-wasm.mjs -> src/gen/scatter-wasm.ts). The same loop in
;; JavaScript checks three arrays' bounds on every entry and took 1.3 to 1.5
;; times as long; here a segment's arrays are in one memory of its own, and
;; each product is rounded exactly as JavaScript rounds it (f32 promoted to
;; f64, multiplied, added), so the sums are the same to the bit.
(module
  ;; A segment's memory, shared with the search thread's helper: the sums
  ;; (f64) by place from byte 0, then the segment's places (u16) and values
  ;; (f32) of one dimension's entries, where `add` is pointed.
  (import "segment" "memory" (memory 1 65536 shared))

  ;; For each of `n` entries: sums[place] += weight * value, the places
  ;; from byte `places` on, the values from byte `values` on.
  (func (export "add") (param $weight f64) (param $places i32) (param $values i32) (param $n i32)
    (local $end i32)
    (local $sum i32)
    (local.set $end (i32.add (local.get $places) (i32.shl (local.get $n) (i32.const 1))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $places) (local.get $end)))
        ;; the entry's sum, 8 bytes a place
        (local.set $sum (i32.shl (i32.load16_u (local.get $places)) (i32.const 3)))
        (f64.store
          (local.get $sum)
          (f64.add
            (f64.load (local.get $sum))
            (f64.mul (local.get $weight) (f64.promote_f32 (f32.load (local.get $values))))))
        (local.set $places (i32.add (local.get $places) (i32.const 2)))
        (local.set $values (i32.add (local.get $values) (i32.const 4)))
        (br $next)))))
