;; JSON string escaping of UTF-8 text, 16 bytes at a time (src/wasm/json-escape.ts says how it is used).
;;
;; escape(from, length, to) writes, at `to`, the bytes JSON.stringify writes between the quotes of a string whose
;; UTF-8 is the `length` bytes at `from`, and returns where its output ends. The input must be valid UTF-8: bytes from
;; 0x80 on are copied as they are, which is what JSON.stringify does with well-formed text. The output needs room for
;; 6 bytes a byte and 16 more.
(module
  (memory (export "memory") 1)

  ;; What comes after the backslash for each byte: 0x00 nothing (the byte is written as it is), 0xff a \u00XX escape,
  ;; anything else that letter (\t \n \r \b \f, \" and \\).
  (data (i32.const 0)
    "\ff\ff\ff\ff\ff\ff\ff\ff\62\74\6e\ff\66\72\ff\ff"
    "\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff"
    "\00\00\22\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\5c\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00")

  ;; The hex digit of the low 4 bits of `value`, in lower case as JSON.stringify writes it.
  (func $hex (param $value i32) (result i32)
    (local $digit i32)
    (local.set $digit (i32.and (local.get $value) (i32.const 15)))
    (select
      (i32.add (local.get $digit) (i32.const 48))
      (i32.add (local.get $digit) (i32.const 87))
      (i32.lt_u (local.get $digit) (i32.const 10))))

  (func (export "escape") (param $from i32) (param $length i32) (param $to i32) (result i32)
    (local $end i32)
    (local $stop i32)
    (local $byte i32)
    (local $letter i32)
    (local $block v128)
    (local.set $end (i32.add (local.get $from) (local.get $length)))
    (block $done
      (loop $blocks
        (br_if $done (i32.ge_u (local.get $from) (local.get $end)))
        (local.set $stop (local.get $end))
        (if (i32.le_u (i32.add (local.get $from) (i32.const 16)) (local.get $end))
          (then
            (local.set $block (v128.load (local.get $from)))
            ;; Written at once: a block with nothing to escape is done, and one with something is written over.
            (v128.store (local.get $to) (local.get $block))
            (if (i32.eqz
                  (v128.any_true
                    (v128.or
                      (i8x16.lt_u (local.get $block) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32))
                      (v128.or
                        (i8x16.eq (local.get $block) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34))
                        (i8x16.eq (local.get $block) (v128.const i8x16 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92))))))
              (then
                (local.set $from (i32.add (local.get $from) (i32.const 16)))
                (local.set $to (i32.add (local.get $to) (i32.const 16)))
                (br $blocks)))
            (local.set $stop (i32.add (local.get $from) (i32.const 16)))))
        ;; A byte at a time up to $stop: a block with something to escape, or the last bytes.
        (loop $bytes
          (local.set $byte (i32.load8_u (local.get $from)))
          (local.set $letter (i32.load8_u (local.get $byte)))
          (if (i32.eqz (local.get $letter))
            (then
              (i32.store8 (local.get $to) (local.get $byte))
              (local.set $to (i32.add (local.get $to) (i32.const 1))))
            (else
              (if (i32.eq (local.get $letter) (i32.const 255))
                (then
                  ;; "\u00" (little-endian), then the two hex digits.
                  (i32.store (local.get $to) (i32.const 0x3030755c))
                  (i32.store8 offset=4 (local.get $to) (call $hex (i32.shr_u (local.get $byte) (i32.const 4))))
                  (i32.store8 offset=5 (local.get $to) (call $hex (local.get $byte)))
                  (local.set $to (i32.add (local.get $to) (i32.const 6))))
                (else
                  ;; A backslash, then the letter.
                  (i32.store16 (local.get $to) (i32.or (i32.shl (local.get $letter) (i32.const 8)) (i32.const 92)))
                  (local.set $to (i32.add (local.get $to) (i32.const 2)))))))
          (local.set $from (i32.add (local.get $from) (i32.const 1)))
          (br_if $bytes (i32.lt_u (local.get $from) (local.get $stop))))
        (br $blocks)))
    (local.get $to)))
