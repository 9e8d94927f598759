/**
 * What the scanner's process is started with beside its configuration: read by glibc's malloc
 * as the process starts, not by env.ts, so every launcher (npm start, docker-compose.yml, the
 * Kubernetes ConfigMap) sets it and test/deploy holds them to this.
 *
 * MALLOC_MMAP_THRESHOLD_: a closing board's series are 565 buffers of about 22 KB, made and freed
 * on the main thread between longer-lived allocations; from malloc's main arena they left it
 * fragmented, and its free pages stayed resident (glibc trims only the arena's top). Taken with
 * mmap from 16 KB, they go back to the system when freed. Measured on Node 26.10.0, the scanner's
 * bundle after its two start-up scans, 30 s idle (four runs each, this machine): 148-150 MB
 * without, 117-121 MB with; scan times unchanged (1.5 to 3.3 s a board). A fixed threshold also
 * stops glibc raising it after large frees, which is what let such buffers into the arena.
 */
export const SCANNER_PROCESS_ENV = { MALLOC_MMAP_THRESHOLD_: "16384" } as const;
