// The images of the container tests: the local base image and the two third-party stand-ins
// (made once per machine by the scripts in deploy/podman/), then the six service images from
// the one Dockerfile, rebuilt every run on podman's shared layer cache, timed and measured.

import { readFileSync } from "node:fs";
import path from "node:path";
import { root, SERVICES, type ServiceName } from "../deploy/tools.js";
import type { Engine } from "./engine.js";

const nodeVersion = /^ARG NODE_IMAGE=node:([0-9.]+)-/m.exec(readFileSync(path.join(root, "Dockerfile"), "utf8"))?.[1];
if (!nodeVersion) throw new Error("the Dockerfile's NODE_IMAGE names no Node version");

export const BASE_IMAGE = `localhost/board-node:${nodeVersion}`;
export const STAND_IN_IMAGES = { nats: "localhost/board-nats-stand-in:2.9", postgres: "localhost/board-postgres-stand-in:15" } as const;
/** What deploy/podman/compose.podman.yml and the dev overlay (board/<service>:dev) name. */
export const serviceImage = (service: ServiceName) => `localhost/board/${service}:dev`;

/** The host's CA bundle, for a build on a network that intercepts TLS (a build secret, never in a layer). */
const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

export interface ImageFigure {
  service: ServiceName;
  image: string;
  build_seconds: number;
  size_mb: number;
}

async function ensure(engine: Engine, images: readonly string[], script: string): Promise<void> {
  const missing = images.filter((image) => engine.podman(["image", "exists", image], { allowFailure: true }).status !== 0);
  if (missing.length === 0) return;
  const res = await engine.exec("bash", [path.join(root, "deploy/podman", script)], { timeoutMs: 900_000 });
  if (res.code !== 0) throw new Error(`deploy/podman/${script} failed (${res.code}):\n${res.stderr.slice(-4000)}`);
}

/** The base and stand-in images, made when this machine has none yet (minutes, from Debian's mirror and npm). */
export async function ensureBaseImages(engine: Engine): Promise<void> {
  await ensure(engine, [BASE_IMAGE], "base-image.sh");
  await ensure(engine, Object.values(STAND_IN_IMAGES), "stand-in-images.sh");
}

const sizeMb = (engine: Engine, image: string) => Number(engine.podman(["image", "inspect", "--format", "{{.Size}}", image]).stdout.trim()) / 1e6;

/**
 * Builds the six service images, one after another (the build stage's full `npm ci` is one
 * cached layer for all six). Docker format, so the Dockerfile's HEALTHCHECK is kept (OCI drops it).
 */
export async function buildServiceImages(engine: Engine): Promise<ImageFigure[]> {
  const { nofile, nproc } = engine.limits;
  const figures: ImageFigure[] = [];
  for (const service of SERVICES) {
    const image = serviceImage(service);
    const started = performance.now();
    const res = await engine.exec(
      "podman",
      [
        "build",
        "--format=docker",
        `--ulimit=nofile=${nofile}:${nofile}`,
        `--ulimit=nproc=${nproc}:${nproc}`,
        `--secret=id=build_ca,src=${CA_BUNDLE}`,
        `--build-arg=NODE_IMAGE=${BASE_IMAGE}`,
        `--build-arg=SERVICE=${service}`,
        `--tag=${image}`,
        root,
      ],
      { timeoutMs: 1_200_000 },
    );
    if (res.code !== 0) throw new Error(`podman build of ${service} failed (${res.code}):\n${(res.stdout + res.stderr).slice(-6000)}`);
    figures.push({ service, image, build_seconds: Math.round((performance.now() - started) / 100) / 10, size_mb: Math.round(sizeMb(engine, image)) });
  }
  return figures;
}
