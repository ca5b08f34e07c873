package dev.studio.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpCharsets;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;

/** JSON in and out: camelCase fields, ISO-8601 times, problems as {@code application/problem+json}. */
public final class Json {
  public static final ObjectMapper MAPPER = new ObjectMapper()
      .registerModule(new JavaTimeModule())
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  public static final ContentType.WithFixedCharset PROBLEM = ContentTypes.create(
      MediaTypes.applicationWithFixedCharset("problem+json", HttpCharsets.UTF_8));

  private Json() {}

  public static HttpResponse response(StatusCode status, Object body) {
    return HttpResponse.create().withStatus(status).withEntity(ContentTypes.APPLICATION_JSON, bytes(body));
  }

  public static HttpResponse ok(Object body) {
    return response(StatusCodes.OK, body);
  }

  /** An RFC 9457 problem: {@code type}, {@code title}, {@code status}, {@code detail}. */
  public static HttpResponse problem(StatusCode status, String title, String detail) {
    var body = new java.util.LinkedHashMap<String, Object>();
    body.put("type", "about:blank");
    body.put("title", title);
    body.put("status", status.intValue());
    if (detail != null) body.put("detail", detail);
    return HttpResponse.create().withStatus(status).withEntity(PROBLEM, bytes(body));
  }

  private static byte[] bytes(Object body) {
    try {
      return MAPPER.writeValueAsBytes(body);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("not serializable as JSON: " + body.getClass(), e);
    }
  }
}
