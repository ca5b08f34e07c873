package dev.studio.auth;

import java.util.UUID;

/** The token a request was made with. */
public record Principal(UUID tokenId, String name, Role role) {}
